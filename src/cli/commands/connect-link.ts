import { cliIo, note, parseDuration, printJson, UsageError } from '../io.ts';
import { type Group, leaf, listing } from './subcommands.ts';

const create = leaf({
  help: `./bin/crm-proxy.mjs connect-link create --provider salesforce|hubspot [--label L] [--login-host H] [--expires-in 24h] [--json]
    prints a one-time link on stdout: whoever opens it connects their account through the CRM's
    consent page (--login-host: login.salesforce.com, test.salesforce.com or a My Domain URL, for a
    real Salesforce org only: in sandbox mode without SALESFORCE_CLIENT_ID, leave it out to connect
    the sandbox; default expiry CRM_PROXY_CONNECT_LINK_TTL_HOURS, 24 h). The link starts with the
    service's address: CRM_PROXY_PUBLIC_URL_<REGION>, else the running service's (sandbox.json in
    the data directory), else PORT; the command says which it used.`,
  options: {
    provider: { type: 'string' },
    label: { type: 'string' },
    'login-host': { type: 'string' },
    'expires-in': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  async run(core, values) {
    if (!values.provider) {
      const ids = core.registry.list().map((a) => a.profile.id);
      throw new UsageError(`--provider is required (${ids.join(' or ')})`);
    }
    // A refusal (an ApiError) is reported as its message, with exit code 1, like any command error.
    const created = await core.connect.createLink({
      provider: values.provider,
      label: values.label ?? null,
      loginHost: values['login-host'],
      ttlMs:
        values['expires-in'] === undefined ? undefined : parseDuration(values['expires-in'], '--expires-in'),
    });
    if (values.json) {
      printJson({ id: created.id, url: created.url, expiresAt: created.expiresAt });
      return 0;
    }
    // Only the URL goes to stdout, so `LINK=$(crm-proxy connect-link create …)` captures exactly it.
    cliIo().stdout.write(`${created.url}\n`);
    const base = core.config.publicUrls[core.config.region];
    note(
      `Created connect link ${created.id} for ${values.provider}, works once until ${created.expiresAt}. ` +
        'Send it to the account owner; the connection appears in `./bin/crm-proxy.mjs connections list` once they allow access. ' +
        `The link uses ${core.address.baseUrl} (from ${core.address.source})` +
        (base === undefined
          ? `; for people on other machines set CRM_PROXY_PUBLIC_URL_${core.config.region.toUpperCase()} to the address they reach the service at.`
          : '.'),
    );
    return 0;
  },
});

const list = listing({
  help: './bin/crm-proxy.mjs connect-link list [--json]',
  load: (core) => core.connect.listLinks(),
  empty: 'No connect links yet. Create one with: ./bin/crm-proxy.mjs connect-link create --provider …',
  headers: ['ID', 'PROVIDER', 'LABEL', 'STATUS', 'EXPIRES', 'CONNECTION'],
  row: (l) => [l.id, l.provider, l.label ?? '', l.status, l.expiresAt, l.connectionId ?? ''],
});

const revoke = leaf({
  help: './bin/crm-proxy.mjs connect-link revoke ID       an unused link (cl_…) stops working',
  operands: 1,
  async run(core, _values, [id = '']) {
    // An unknown or used link is refused (an ApiError), reported as its message with exit code 1.
    const outcome = await core.connect.revokeLink(id);
    note(outcome === 'revoked' ? `Revoked connect link ${id}.` : `Connect link ${id} was already revoked.`);
    return 0;
  },
});

export const connectLink: Group = { subcommands: { create, list, revoke } };
