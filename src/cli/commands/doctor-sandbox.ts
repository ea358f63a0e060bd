import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from '../../domain/connection.ts';
import type { Core } from '../core.ts';

/** Where each in-process sandbox keeps its state (sandbox/*: `persistDir`). */
const STATE_FILES: Record<string, string> = {
  salesforce: 'salesforce-sandbox.state',
  hubspot: 'hubspot-sandbox.state',
};

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
  const file = join(core.config.dataDir, STATE_FILES[crm] ?? `${crm}-sandbox.state`);
  if (!existsSync(file)) {
    return `${file} does not exist: the ${crm} sandbox's grants were not kept (the file was removed, or the service ran with another data directory)`;
  }
  return `the ${crm} sandbox does not know this connection's grant (revoked, or made before the sandbox kept its state in ${file})`;
}
