import { createChecked, reauthorizeChecked } from '../../connect/checked.ts';
import type { Credentials } from '../../connections/types.ts';
import type { ProviderProfile } from '../../providers/adapter.ts';
import { CommandError, cliIo, note, printJson, readSecret, UsageError } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

const add = leaf({
  help: `./bin/crm-proxy.mjs connections add --provider salesforce --instance-url URL --refresh-token T [--label L]
./bin/crm-proxy.mjs connections add --provider hubspot (--refresh-token T | --private-app-token T) [--label L]
    Secrets: pass "-" to read the value from stdin (keeps it out of shell history and ps), or leave
    the flag out and set CRM_PROXY_REFRESH_TOKEN / CRM_PROXY_PRIVATE_APP_TOKEN.
    Also: --api-base-url URL (override the CRM API host), --sandbox (a local sandbox CRM; allows http URLs), --json
    The connection is stored only after one authenticated call with it works (Salesforce userinfo,
    HubSpot token information); an OAuth refresh token needs the CRM's OAuth app variables
    (SALESFORCE_CLIENT_ID/_SECRET, HUBSPOT_CLIENT_ID/_SECRET). --skip-check stores it unchecked.
    In a browser instead: ./bin/crm-proxy.mjs connect-link create --provider salesforce|hubspot`,
  options: {
    provider: { type: 'string' },
    'instance-url': { type: 'string' },
    'api-base-url': { type: 'string' },
    'refresh-token': { type: 'string' },
    'private-app-token': { type: 'string' },
    label: { type: 'string' },
    sandbox: { type: 'boolean', default: false },
    'skip-check': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
  async run(core, values) {
    const profiles = core.registry.list().map((a) => a.profile);
    const profile = profiles.find((p) => p.id === values.provider);
    if (profile === undefined) {
      throw new UsageError(`--provider must be ${profiles.map((p) => p.id).join(' or ')}`);
    }
    const credentials = await readCredentials(profiles, profile, values);
    if (profile.connection.instanceUrl === 'required' && !values['instance-url']) {
      const example = profile.connection.instanceUrlExample;
      throw new UsageError(
        `--instance-url is required for ${profile.displayName}${example === undefined ? '' : ` (e.g. ${example})`}`,
      );
    }
    const input = {
      provider: profile.id,
      label: values.label ?? null,
      instanceUrl: values['instance-url'] ?? null,
      apiBaseUrl: values['api-base-url'] ?? null,
      sandbox: values.sandbox,
      credentials,
    };
    const result = await createChecked(core.connect, input, { check: !values['skip-check'] });
    if (!result.ok) throw new CommandError(result.message);
    if (values.json) printJson(result.connection);
    else {
      cliIo().stdout.write(`${result.connection.id}\n`);
      const checked = result.checked
        ? ` Checked: it reaches account ${result.connection.accountId ?? '(id not given)'}${result.user === null ? '' : ` as ${result.user}`}.`
        : ' Not checked: its first API call will tell whether the credentials work.';
      note(
        `Created ${profile.id} connection ${result.connection.id} in region ${result.connection.region}.${checked} ` +
          `Next: ./bin/crm-proxy.mjs tokens create --connection ${result.connection.id}`,
      );
    }
    return 0;
  },
});

/** The credentials the flags (or the environment) give for `profile`'s CRM. */
async function readCredentials(
  profiles: readonly ProviderProfile[],
  profile: ProviderProfile,
  flags: { 'refresh-token'?: string | undefined; 'private-app-token'?: string | undefined },
): Promise<Credentials> {
  const { 'refresh-token': refreshFlag, 'private-app-token': privateAppFlag } = flags;
  const takes = (p: ProviderProfile) => p.connection.credentials.includes('private_app');
  const takesPrivateApp = takes(profile);
  if (privateAppFlag !== undefined && !takesPrivateApp) {
    const takers = profiles.filter(takes).map((p) => p.displayName);
    throw new UsageError(`--private-app-token applies to ${takers.join(' and ')} only`);
  }
  if (refreshFlag !== undefined && privateAppFlag !== undefined) {
    throw new UsageError('give either --refresh-token or --private-app-token, not both');
  }
  // A flag wins over the environment; without flags, exactly one of the variables may be set.
  const refreshToken =
    privateAppFlag === undefined ? await readSecret(refreshFlag, 'CRM_PROXY_REFRESH_TOKEN') : undefined;
  const privateAppToken =
    takesPrivateApp && refreshFlag === undefined
      ? await readSecret(privateAppFlag, 'CRM_PROXY_PRIVATE_APP_TOKEN')
      : undefined;
  if (refreshToken !== undefined && privateAppToken !== undefined) {
    throw new UsageError(
      'both CRM_PROXY_REFRESH_TOKEN and CRM_PROXY_PRIVATE_APP_TOKEN are set; pass a flag to choose',
    );
  }
  if (privateAppToken !== undefined) return { kind: 'private_app', token: privateAppToken };
  if (refreshToken !== undefined) return { kind: 'oauth', refreshToken };
  throw new UsageError(
    takesPrivateApp
      ? '--refresh-token or --private-app-token is required ("-" reads it from stdin; or set CRM_PROXY_REFRESH_TOKEN / CRM_PROXY_PRIVATE_APP_TOKEN)'
      : '--refresh-token is required (or "-" to read it from stdin, or CRM_PROXY_REFRESH_TOKEN)',
  );
}

const list = listing({
  help: './bin/crm-proxy.mjs connections list [--json]',
  load: (core) => core.connections.list(),
  empty: 'No connections yet. Add one with: ./bin/crm-proxy.mjs connections add --provider …',
  headers: ['ID', 'PROVIDER', 'LABEL', 'STATUS', 'HOST', 'CREATED'],
  row: (c) => [
    c.id,
    c.provider,
    c.label ?? '',
    c.status === 'active' ? 'active' : `needs_reauth${c.statusReason ? ` (${c.statusReason})` : ''}`,
    `${c.apiBaseUrl ?? c.instanceUrl ?? ''}${c.sandbox ? ' [sandbox]' : ''}`,
    c.createdAt,
  ],
});

const reauth = leaf({
  help: `./bin/crm-proxy.mjs connections reauth ID (--refresh-token T | --private-app-token T) [--skip-check]
    replaces the credentials (same "-" and environment options, same check) and marks the connection
    active again; its API tokens keep working (in a browser: Reconnect in the console)`,
  options: {
    'refresh-token': { type: 'string' },
    'private-app-token': { type: 'string' },
    'skip-check': { type: 'boolean', default: false },
  },
  operands: 1,
  async run(core, values, [id = '']) {
    const existing = (await core.connections.list()).find((c) => c.id === id);
    if (!existing) throw new CommandError(`No connection ${id}.`);
    const profiles = core.registry.list().map((a) => a.profile);
    const credentials = await readCredentials(profiles, core.registry.adapterFor(existing).profile, values);
    const result = await reauthorizeChecked(core.connect, existing, credentials, {
      check: !values['skip-check'],
    });
    if (!result.ok) throw new CommandError(result.message);
    note(
      `Updated the credentials of ${id}; it is active again.${result.checked ? ' Checked: the credentials work.' : ''}`,
    );
    return 0;
  },
});

const remove = leaf({
  help: './bin/crm-proxy.mjs connections remove ID        removes the connection and all of its API tokens',
  operands: 1,
  async run(core, _values, [id = '']) {
    const tokens = await core.auth.list(id);
    if (!(await core.connections.remove(id))) throw new CommandError(`No connection ${id}.`);
    note(`Removed connection ${id} and its ${tokens.length} API token(s).`);
    return 0;
  },
});

export const connections: Group = { subcommands: { add, reauth, list, remove } };
