import assert from 'node:assert/strict';
import { storedInput } from '../../src/jobs/stored-input.ts';
import type { BatchWrite } from '../../src/operations/writes.ts';
import { type LegacyFormat, legacyInputText } from './legacy-input.ts';
import type { Stack } from './stack.ts';
import { waitFor } from './wait.ts';

let seq = 0;

/**
 * A job as an instance that died mid-way leaves it: stored with its input and journal, claimed by
 * a dead owner whose lease has run out. The stack's runner then resumes it; resolves with its id
 * once it has completed. With `legacy`, the input is stored as an earlier version stored it.
 */
export async function interruptedJob(
  s: Stack,
  crm: 'salesforce' | 'hubspot',
  operation: 'insert' | 'update',
  input: { objectName: string; records: unknown[]; via?: string },
  journal: Record<string, unknown>,
  legacy?: LegacyFormat,
): Promise<string> {
  const token = await s.ctx.auth.verify(`Bearer ${s.tokens[crm]}`);
  assert.ok(token.ok);
  const id = `job_resume${String(seq++).padStart(23, '0')}`;
  await s.store.jobs.insert({
    id,
    tokenId: token.token.id,
    connectionId: s.connectionIds[crm],
    requestId: null,
    operation,
    objectName: input.objectName,
    ...(legacy === undefined
      ? await storedInput({ operation, input } as BatchWrite)
      : { input: legacyInputText(input, legacy) }),
    total: input.records.length,
    now: new Date().toISOString(),
  });
  for (const [key, value] of Object.entries(journal)) {
    await s.store.jobs.journalSet(id, key, JSON.stringify(value), new Date().toISOString());
  }
  const past = new Date(Date.now() - 1000).toISOString();
  assert.ok(await s.store.jobs.claim(id, 'inst_dead', past, past));
  await s.ctx.jobs.sweep();
  await waitFor(
    'the resumed job to finish',
    async () => (await s.store.jobs.find(id))?.state === 'completed',
  );
  return id;
}
