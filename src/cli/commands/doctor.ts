import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/index.ts';
import { PLAIN_HTTP_FIX, plainHttpUrls } from '../../connections/plain-http.ts';
import type { ConnectionWithCredentials } from '../../connections/types.ts';
import type { Connection } from '../../domain/connection.ts';
import { ApiError } from '../../errors/index.ts';
import type { Core } from '../core.ts';
import { note, printJson } from '../io.ts';
import type { StoreLocation } from '../location.ts';
import type { Leaf } from './subcommands.ts';

type Level = 'ok' | 'warn' | 'fail';
interface Finding {
  check: string;
  level: Level;
  detail: string;
  fix?: string;
}
/** Reports one finding: `fix` says what to do about a warning or a failure. */
type Add = (level: Level, check: string, detail: string, fix?: string) => void;

/** A connection's credentials as the key opened them (null: removed meanwhile). */
type Opened = ConnectionWithCredentials | null | 'unreadable';

const MARK: Record<Level, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** Opens the store itself: a store that cannot be found or opened is a finding, not an error. */
export const doctor: Leaf = {
  help: `./bin/crm-proxy.mjs doctor [--json]
    checks the configuration, the store, the encryption key, the CRMs' OAuth app settings and each
    connection (one cheap authenticated call), and prints what to fix, with the cause when a
    connection cannot refresh its token. Exit code 1 when something must be fixed, 0 otherwise
    (warnings included).`,
  options: { json: { type: 'boolean', default: false } },
  async run(values) {
    const json = values.json === true;
    const findings: Finding[] = [];
    await diagnose((level, check, detail, fix) => {
      findings.push({ check, level, detail, fix });
      if (json) return;
      note(`${MARK[level]}  ${check}: ${detail}`);
      if (fix !== undefined) note(`      fix: ${fix}`);
    });
    const failed = findings.filter((f) => f.level === 'fail').length;
    const warned = findings.filter((f) => f.level === 'warn').length;
    if (json) printJson({ ok: failed === 0, findings });
    else
      note(
        failed === 0
          ? `All checks passed${warned > 0 ? ` (${warned} warning(s))` : ''}.`
          : `${failed} problem(s) to fix.`,
      );
    return failed === 0 ? 0 : 1;
  },
};

async function diagnose(add: Add): Promise<void> {
  // The configuration, the store and the providers load here, not with the CLI's help.
  const [{ locateStore }, { GENERATED_KEY_FILE }] = await Promise.all([
    import('../location.ts'),
    import('../../crypto/keyring.ts'),
  ]);
  let location: StoreLocation;
  try {
    location = locateStore();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const fix = 'correct the variables named above (in the environment, the CRM_PROXY_CONFIG file or .env)';
    return add('fail', 'configuration', err.message, fix);
  }
  const { config, resolved } = location;
  add(
    'ok',
    'configuration',
    `read from the environment${resolved.files.length > 0 ? ` and ${resolved.files.join(', ')}` : ''}; ${config.production ? 'production' : config.sandbox ? 'sandbox mode' : 'sandbox off'}, region ${config.region}`,
  );

  const keyFile = join(config.dataDir, GENERATED_KEY_FILE);
  const generatedKey = config.encryption.keys.length === 0;
  if (!location.exists) {
    return add(
      'fail',
      'store',
      `${location.where} does not exist`,
      resolved.storeConfigured
        ? 'start the service once (./bin/crm-proxy.mjs serve) or run ./bin/crm-proxy.mjs init to create it, or correct the setting that points here'
        : "point the CLI at the service's store (run it in the service's directory, set CRM_PROXY_DATA_DIR or DATABASE_URL, or CRM_PROXY_CONFIG=/path/to/.env)",
    );
  }
  if (generatedKey && config.sandbox && config.databaseUrl === undefined && !existsSync(keyFile)) {
    return add(
      'fail',
      'encryption key',
      `the store exists but ${keyFile}, the generated key its credentials are sealed with, does not`,
      'restore that file from where the store came from, or set CRM_PROXY_ENCRYPTION_KEYS to the key the store was written with',
    );
  }
  const { openCore } = await import('../core.ts');
  let core: Core;
  try {
    core = await openCore(location, { info: () => {}, warn: () => {} });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ConfigError) {
      const fix = 'set CRM_PROXY_ENCRYPTION_KEYS (and CRM_PROXY_ENCRYPTION_KEY_ID) as the service has them';
      return add('fail', 'encryption key', message, fix);
    }
    const fix = 'check that the database is reachable and the data directory readable by this user';
    return add('fail', 'store', `${location.where} could not be opened: ${message}`, fix);
  }
  try {
    const connections = await core.connections.list();
    const tokens = (await core.auth.list(undefined)).length;
    add('ok', 'store', `${location.where}: ${connections.length} connection(s), ${tokens} API token(s)`);
    const opened = await checkKey(core, connections, generatedKey ? keyFile : null, add);
    checkApps(core, connections, add);
    for (const [connection, stored] of opened) await checkConnection(core, connection, stored, add);
  } finally {
    await core.close();
  }
}

/** Opens each connection's credentials, once (the connection checks use them): do the keys open them all? */
async function checkKey(
  core: Core,
  connections: Connection[],
  keyFile: string | null,
  add: Add,
): Promise<Map<Connection, Opened>> {
  const opened = new Map<Connection, Opened>();
  for (const c of connections)
    opened.set(c, await core.connections.get(c.id).catch(() => 'unreadable' as const));
  const unreadable = connections.filter((c) => opened.get(c) === 'unreadable').map((c) => c.id);
  const source = keyFile === null ? 'CRM_PROXY_ENCRYPTION_KEYS' : keyFile;
  if (unreadable.length === 0) {
    const detail = `key "${core.keyring.activeKeyId}" from ${source} opens the credentials of all ${connections.length} connection(s)`;
    add('ok', 'encryption key', detail);
  } else {
    add(
      'fail',
      'encryption key',
      `the keys from ${source} cannot open the credentials of ${unreadable.join(', ')}`,
      'add the key they were sealed with to CRM_PROXY_ENCRYPTION_KEYS (keep the new one as CRM_PROXY_ENCRYPTION_KEY_ID), then run ./bin/crm-proxy.mjs rotate-key',
    );
  }
  return opened;
}

function checkApps(core: Core, connections: Connection[], add: Add): void {
  const redirect = core.connect.redirectUri();
  for (const p of core.connect.providers()) {
    const check = `${p.displayName} OAuth app`;
    if (p.missing.length === 0) {
      add('ok', check, `configured; its redirect URL must be ${redirect}`);
      continue;
    }
    const real = connections.filter((c) => c.provider === p.provider && !c.sandbox).map((c) => c.id);
    add(
      'warn',
      check,
      `not configured (${p.missing.join(', ')} unset): ${p.sandbox ? 'the sandbox connects; ' : ''}real accounts cannot connect in a browser${real.length > 0 ? `, and OAuth connections ${real.join(', ')} cannot refresh their tokens` : ''}`,
      `set ${p.missing.join(' and ')} from the CRM app, with redirect URL ${redirect}`,
    );
  }
}

async function checkConnection(core: Core, connection: Connection, stored: Opened, add: Add): Promise<void> {
  const name = `connection ${connection.id}${connection.label ? ` (${connection.label})` : ''}`;
  const reauth = `reconnect it in the console (Reconnect), or: ./bin/crm-proxy.mjs connections reauth ${connection.id} --refresh-token -`;
  const cause = sandboxCause(core, connection);
  const because = cause === null ? '' : `; cause: ${cause}`;
  if (connection.status === 'needs_reauth') {
    const reason = connection.statusReason ?? 'the CRM refused its refresh token';
    return add('fail', name, `needs re-authorisation: ${reason}${because}`, reauth);
  }
  // Plain-http URLs in production: a warning under the opt-out, else a failure and no call (it is refused).
  const plain = plainHttpUrls(connection);
  if (plain.length > 0 && core.config.production) {
    const allowed = core.config.plainHttpCrm === true;
    add(
      allowed ? 'warn' : 'fail',
      name,
      `reaches its CRM over plain http (${plain.map((u) => `${u.field} ${u.url}`).join(', ')}): its tokens cross the network unencrypted${allowed ? '' : '; the service refuses its calls (connection_plain_http), so doctor does not call it either'}`,
      PLAIN_HTTP_FIX,
    );
    if (!allowed) return;
  }
  const adapter = core.registry.adapterFor(connection);
  const facet = adapter.connect;
  // Unreadable credentials are reported by the key check.
  if (stored === null || stored === 'unreadable' || facet === undefined) return;
  const crm = `${adapter.profile.displayName}${connection.sandbox ? ` at ${connection.apiBaseUrl ?? connection.instanceUrl ?? ''}` : ''}`;
  try {
    let token = await core.tokens.accessToken(connection);
    let outcome = await facet.checkAccess(connection, stored.credentials.kind, token);
    if (!outcome.ok && outcome.status === 401 && stored.credentials.kind === 'oauth') {
      token = await core.tokens.refreshAfterRejected(connection, token);
      outcome = await facet.checkAccess(connection, stored.credentials.kind, token);
    }
    if (outcome.ok) {
      const who = `${outcome.user ? ` for ${outcome.user}` : ''}${outcome.accountId ? ` (account ${outcome.accountId})` : ''}`;
      return add('ok', name, `${crm} answered${who}`);
    }
    add(
      'fail',
      name,
      `the check call to ${crm} failed: ${outcome.description}${because}`,
      outcome.status === 401 || outcome.status === 403 || cause !== null
        ? reauth
        : 'check the network path to the CRM',
    );
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    if (err instanceof ApiError && err.code === 'connection_needs_reauth') {
      // The CRM refused the refresh token (the connection is now marked so), or no OAuth app is set.
      const appMissing = /no OAuth client configured/.test(message);
      const fix = appMissing ? 'set the OAuth app variables named above, as the service has them' : reauth;
      return add('fail', name, `${message}${because}`, fix);
    }
    add(
      'fail',
      name,
      `${crm} could not be reached: ${message}${because}`,
      connection.sandbox
        ? 'start the service in sandbox mode (npm start) so its sandbox CRMs run, with the same CRM_PROXY_DATA_DIR'
        : 'check the network path to the CRM (proxy, firewall, DNS)',
    );
  }
}

/** Why a sandbox connection's tokens are refused, in words a user can act on; null for a real CRM. */
function sandboxCause(core: Core, connection: Connection): string | null {
  if (!connection.sandbox) return null;
  const crm = connection.provider;
  const at = connection.apiBaseUrl ?? connection.instanceUrl ?? '';
  const running = core.address.sandboxUrls[crm as 'salesforce' | 'hubspot'];
  if (running !== undefined && at !== '' && running !== at) {
    return `the connection points at ${at}, but this service's ${crm} sandbox listens at ${running}: it was made while the service ran on another PORT; start the service with that PORT again, or re-connect it`;
  }
  if (!core.location.launcher.persist) {
    return `CRM_PROXY_SANDBOX_PERSIST=false: the ${crm} sandbox forgets the OAuth grants it issued when it restarts, so only its bootstrap connection survives; unset it to keep them`;
  }
  // Where the in-process sandbox keeps its state (sandbox/*: `persistDir`).
  const file = join(core.config.dataDir, `${crm}-sandbox.state`);
  if (!existsSync(file)) {
    return `${file} does not exist: the ${crm} sandbox's grants were not kept (the file was removed, or the service ran with another data directory)`;
  }
  return `the ${crm} sandbox does not know this connection's grant (revoked, or made before the sandbox kept its state in ${file})`;
}
