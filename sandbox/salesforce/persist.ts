import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Org, OrgState } from './org/index.ts';

/** File name of the persisted org in the data directory. */
export const STATE_FILE = 'salesforce-sandbox.json';
/** Writes are gathered for this long before the file is rewritten. */
const SAVE_DELAY_MS = 250;

/**
 * `persistDir`: the org (metadata and records, recycle bin included) is read from the data directory
 * at start and written back shortly after each change and when the sandbox closes, so a restarted
 * sandbox has the same data and schema. Writes go to a temporary file renamed over the old one, so a
 * crash mid-write leaves the previous state whole.
 */
export function persistOrg(app: FastifyInstance, org: Org, dir: string): void {
  const file = join(dir, STATE_FILE);
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as OrgState;
    org.importState(state);
  }
  let timer: NodeJS.Timeout | null = null;
  const save = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(org.exportState()), { mode: 0o600 });
    renameSync(tmp, file);
  };
  app.addHook('onResponse', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (timer === null) {
      timer = setTimeout(save, SAVE_DELAY_MS);
      timer.unref();
    }
  });
  app.addHook('onClose', async () => save());
}
