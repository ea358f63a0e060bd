import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Journaled, persistState } from '../shared/persist.ts';
import type { SalesforceContext } from './context.ts';
import type { OrgState } from './org/index.ts';

/** File name of the persisted org and OAuth grants in the data directory. */
export const STATE_FILE = 'salesforce-sandbox.state';
/** The org alone, as JSON, from before OAuth grants were kept too: read once when no state file exists. */
const LEGACY_FILE = 'salesforce-sandbox.json';

/**
 * `persistDir`: the org (metadata and records, recycle bin included) and the OAuth state (grants,
 * refresh and access tokens, codes) are read from the data directory at start and saved after
 * each change (the records it changed, one by one), so a restarted sandbox has the same data and schema and still honours every
 * refresh token it issued.
 */
export function persistSalesforce(app: FastifyInstance, ctx: SalesforceContext, dir: string): void {
  const file = join(dir, STATE_FILE);
  const legacy = join(dir, LEGACY_FILE);
  if (!existsSync(file) && existsSync(legacy)) {
    ctx.org.importState(JSON.parse(readFileSync(legacy, 'utf8')) as OrgState);
  }
  const org: Journaled = {
    exportState: () => ctx.org.exportState(),
    importState: (s) => ctx.org.importState(s as OrgState),
    journalHead: () => ctx.org.journalHead(),
    journalChanges: () => ctx.org.journalChanges(),
    journalLoad: (head, entries) => ctx.org.journalLoad(head, entries),
  };
  persistState(app, file, { org, oauth: ctx.oauth });
}
