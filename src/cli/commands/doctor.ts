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
import { jsonFlag } from './subcommands.ts';

export const DOCTOR_HELP = `./bin/crm-proxy.mjs doctor [--json]
    checks the configuration, the store, the encryption key, the CRMs' OAuth app settings and each
    connection (one cheap authenticated call), and prints what to fix, with the cause when a
    connection cannot refresh its token. Exit code 1 when something must be fixed, 0 otherwise
    (warnings included).`;

type Level = 'ok' | 'warn' | 'fail';
interface Finding {
  check: string;
  level: Level;
  detail: string;
  fix?: string;
}

/** A connection's credentials as the key opened them (null: removed meanwhile). */
type Opened = ConnectionWithCredentials | null | 'unreadable';

const MARK: Record<Level, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export async function doctorCommand(args: string[]): Promise<number> {
  const json = jsonFlag(args);
  const findings: Finding[] = [];
  const add = (f: Finding) => {
    findings.push(f);
    if (!json) {
      note(`${MARK[f.level]}  ${f.check}: ${f.detail}`);
      if (f.fix !== undefined) note(`      fix: ${f.fix}`);
    }
  };
  await diagnose(add);
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
}

async function diagnose(add: (f: Finding) => void): Promise<void> {
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
    add({
      check: 'configuration',
      level: 'fail',
      detail: err.message,
      fix: 'correct the variables named above (in the environment, the CRM_PROXY_CONFIG file or .env)',
    });
    return;
  }
  const { config, resolved } = location;
  add({
    check: 'configuration',
    level: 'ok',
    detail: `read from the environment${resolved.files.length > 0 ? ` and ${resolved.files.join(', ')}` : ''}; ${config.production ? 'production' : config.sandbox ? 'sandbox mode' : 'sandbox off'}, region ${config.region}`,
  });

  const keyFile = join(config.dataDir, GENERATED_KEY_FILE);
  const generatedKey = config.encryption.keys.length === 0;
  if (!location.exists) {
    add({
      check: 'store',
      level: 'fail',
      detail: `${location.where} does not exist`,
      fix: resolved.storeConfigured
        ? 'start the service once (./bin/crm-proxy.mjs serve) or run ./bin/crm-proxy.mjs init to create it, or correct the setting that points here'
        : "point the CLI at the service's store (run it in the service's directory, set CRM_PROXY_DATA_DIR or DATABASE_URL, or CRM_PROXY_CONFIG=/path/to/.env)",
    });
    return;
  }
  if (generatedKey && config.sandbox && config.databaseUrl === undefined && !existsSync(keyFile)) {
    add({
      check: 'encryption key',
      level: 'fail',
      detail: `the store exists but ${keyFile}, the generated key its credentials are sealed with, does not`,
      fix: 'restore that file from where the store came from, or set CRM_PROXY_ENCRYPTION_KEYS to the key the store was written with',
    });
    return;
  }
  const { openCore } = await import('../core.ts');
  let core: Core;
  try {
    core = await openCore(config, { info: () => {}, warn: () => {} });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const keyProblem = err instanceof ConfigError;
    add({
      check: keyProblem ? 'encryption key' : 'store',
      level: 'fail',
      detail: keyProblem ? message : `${location.where} could not be opened: ${message}`,
      fix: keyProblem
        ? 'set CRM_PROXY_ENCRYPTION_KEYS (and CRM_PROXY_ENCRYPTION_KEY_ID) as the service has them'
        : 'check that the database is reachable and the data directory readable by this user',
    });
    return;
  }
  try {
    const connections = await core.connections.list();
    add({
      check: 'store',
      level: 'ok',
      detail: `${location.where}: ${connections.length} connection(s), ${(await core.auth.list(undefined)).length} API token(s)`,
    });
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
  add: (f: Finding) => void,
): Promise<Map<Connection, Opened>> {
  const opened = new Map<Connection, Opened>();
  for (const c of connections)
    opened.set(c, await core.connections.get(c.id).catch(() => 'unreadable' as const));
  const unreadable = connections.filter((c) => opened.get(c) === 'unreadable').map((c) => c.id);
  const source = keyFile === null ? 'CRM_PROXY_ENCRYPTION_KEYS' : keyFile;
  if (unreadable.length === 0) {
    add({
      check: 'encryption key',
      level: 'ok',
      detail: `key "${core.keyring.activeKeyId}" from ${source} opens the credentials of all ${connections.length} connection(s)`,
    });
    return opened;
  }
  add({
    check: 'encryption key',
    level: 'fail',
    detail: `the keys from ${source} cannot open the credentials of ${unreadable.join(', ')}`,
    fix: 'add the key they were sealed with to CRM_PROXY_ENCRYPTION_KEYS (keep the new one as CRM_PROXY_ENCRYPTION_KEY_ID), then run ./bin/crm-proxy.mjs rotate-key',
  });
  return opened;
}

function checkApps(core: Core, connections: Connection[], add: (f: Finding) => void): void {
  for (const p of core.connect.providers()) {
    const real = connections.filter((c) => c.provider === p.provider && !c.sandbox);
    if (p.missing.length === 0) {
      add({
        check: `${p.displayName} OAuth app`,
        level: 'ok',
        detail: `configured; its redirect URL must be ${core.connect.redirectUri()}`,
      });
    } else {
      add({
        check: `${p.displayName} OAuth app`,
        level: 'warn',
        detail: `not configured (${p.missing.join(', ')} unset): ${p.sandbox ? 'the sandbox connects; ' : ''}real accounts cannot connect in a browser${real.length > 0 ? `, and OAuth connections ${real.map((c) => c.id).join(', ')} cannot refresh their tokens` : ''}`,
        fix: `set ${p.missing.join(' and ')} from the CRM app, with redirect URL ${core.connect.redirectUri()}`,
      });
    }
  }
}

/** Plain-http URLs in production: a warning under the opt-out, else a failure and no call (it is refused). */
function checkPlainHttp(
  core: Core,
  connection: Connection,
  name: string,
  add: (f: Finding) => void,
): 'refused' | 'go' {
  const plain = plainHttpUrls(connection);
  if (plain.length === 0 || !core.config.production) return 'go';
  const allowed = core.config.plainHttpCrm === true;
  add({
    check: name,
    level: allowed ? 'warn' : 'fail',
    detail: `reaches its CRM over plain http (${plain.map((u) => `${u.field} ${u.url}`).join(', ')}): its tokens cross the network unencrypted${allowed ? '' : '; the service refuses its calls (connection_plain_http), so doctor does not call it either'}`,
    fix: PLAIN_HTTP_FIX,
  });
  return allowed ? 'go' : 'refused';
}

async function checkConnection(
  core: Core,
  connection: Connection,
  stored: Opened,
  add: (f: Finding) => void,
): Promise<void> {
  const name = `connection ${connection.id}${connection.label ? ` (${connection.label})` : ''}`;
  const reauth = `reconnect it in the console (Reconnect), or: ./bin/crm-proxy.mjs connections reauth ${connection.id} --refresh-token -`;
  const cause = sandboxCause(core, connection);
  const because = cause === null ? '' : `; cause: ${cause}`;
  if (connection.status === 'needs_reauth') {
    add({
      check: name,
      level: 'fail',
      detail: `needs re-authorisation: ${connection.statusReason ?? 'the CRM refused its refresh token'}${because}`,
      fix: reauth,
    });
    return;
  }
  if (checkPlainHttp(core, connection, name, add) === 'refused') return;
  const adapter = core.registry.adapterFor(connection);
  const facet = adapter.connect;
  // Unreadable credentials are reported by the key check.
  if (stored === null || stored === 'unreadable' || facet === undefined) return;
  const where = connection.sandbox ? ` at ${connection.apiBaseUrl ?? connection.instanceUrl ?? ''}` : '';
  try {
    let token = await core.tokens.accessToken(connection);
    let outcome = await facet.checkAccess(connection, stored.credentials.kind, token);
    if (!outcome.ok && outcome.status === 401 && stored.credentials.kind === 'oauth') {
      token = await core.tokens.refreshAfterRejected(connection, token);
      outcome = await facet.checkAccess(connection, stored.credentials.kind, token);
    }
    if (outcome.ok) {
      add({
        check: name,
        level: 'ok',
        detail: `${adapter.profile.displayName}${where} answered${outcome.user ? ` for ${outcome.user}` : ''}${outcome.accountId ? ` (account ${outcome.accountId})` : ''}`,
      });
    } else {
      add({
        check: name,
        level: 'fail',
        detail: `the check call to ${adapter.profile.displayName}${where} failed: ${outcome.description}${because}`,
        fix:
          outcome.status === 401 || outcome.status === 403 || cause !== null
            ? reauth
            : 'check the network path to the CRM',
      });
    }
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    if (err instanceof ApiError && err.code === 'connection_needs_reauth') {
      // The CRM refused the refresh token (the connection is now marked so), or no OAuth app is set.
      const appMissing = /no OAuth client configured/.test(message);
      add({
        check: name,
        level: 'fail',
        detail: `${message}${because}`,
        fix: appMissing ? 'set the OAuth app variables named above, as the service has them' : reauth,
      });
      return;
    }
    add({
      check: name,
      level: 'fail',
      detail: `${adapter.profile.displayName}${where} could not be reached: ${message}${because}`,
      fix: connection.sandbox
        ? 'start the service in sandbox mode (npm start) so its sandbox CRMs run, with the same CRM_PROXY_DATA_DIR'
        : 'check the network path to the CRM (proxy, firewall, DNS)',
    });
  }
}

/**
 * Why a sandbox connection's tokens are refused, in the words a user can act on: the sandbox runs
 * at another address, or it did not keep its OAuth grants across a restart. Null for a real CRM.
 */
export function sandboxCause(core: Core, connection: Connection): string | null {
  if (!connection.sandbox) return null;
  const crm = connection.provider;
  const at = connection.apiBaseUrl ?? connection.instanceUrl ?? '';
  const running = core.address.sandboxUrls[crm as 'salesforce' | 'hubspot'];
  if (running !== undefined && at !== '' && running !== at) {
    return `the connection points at ${at}, but this service's ${crm} sandbox listens at ${running}: it was made while the service ran on another PORT; start the service with that PORT again, or re-connect it`;
  }
  if (core.config.sandboxPersist !== true) {
    return `CRM_PROXY_SANDBOX_PERSIST=false: the ${crm} sandbox forgets the OAuth grants it issued when it restarts, so only its bootstrap connection survives; unset it to keep them`;
  }
  // Where the in-process sandbox keeps its state (sandbox/*: `persistDir`).
  const file = join(core.config.dataDir, `${crm}-sandbox.state`);
  if (!existsSync(file)) {
    return `${file} does not exist: the ${crm} sandbox's grants were not kept (the file was removed, or the service ran with another data directory)`;
  }
  return `the ${crm} sandbox does not know this connection's grant (revoked, or made before the sandbox kept its state in ${file})`;
}
