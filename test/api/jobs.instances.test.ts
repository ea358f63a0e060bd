// Several instances on one PostgreSQL store: a job left by a dead instance is resumed by exactly
// one of them, and an Idempotency-Key holds across instances.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createContext } from '../../src/context.ts';
import { storedInput } from '../../src/jobs/stored-input.ts';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';
import { countWhere, type ErrorBody, type WriteAnswer } from './sf-writes-helpers.ts';

test('two instances on one PostgreSQL store: a dead instance’s job is resumed by exactly one; keys hold across them', async (t) => {
  const s = await startStack(t, { postgres: true, env: { CRM_PROXY_RATE_LIMIT_PER_SECOND: '0' } });
  const second = await createContext(s.ctx.config, {
    pgSchema: s.pgSchema,
    sandboxes: { salesforce: s.sf.credentials, hubspot: s.hs.credentials },
  });
  const app = buildApp(second);
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await second.close();
  });
  const address = app.server.address();
  const secondUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

  // A job an instance claimed and then died with: its lease has run out.
  const token = await s.ctx.auth.verify(`Bearer ${s.tokens.salesforce}`);
  assert.ok(token.ok);
  const records = Array.from({ length: 500 }, (_, i) => ({ Name: `Lease-${i}` }));
  const job = await s.store.jobs.insert({
    id: 'job_leasetest0000000000000000000001',
    tokenId: token.token.id,
    connectionId: s.connectionIds.salesforce,
    requestId: null,
    operation: 'insert',
    objectName: 'Account',
    ...(await storedInput({
      operation: 'insert',
      input: { objectName: 'Account', records, via: 'collections' },
    })),
    total: records.length,
    now: new Date().toISOString(),
  });
  const past = new Date(Date.now() - 1000).toISOString();
  assert.ok(await s.store.jobs.claim(job.id, 'inst_dead', past, past));

  // Both instances sweep at once (the first also sweeps on its own timer).
  await Promise.all([s.ctx.jobs.sweep(), second.jobs.sweep(), s.ctx.jobs.sweep(), second.jobs.sweep()]);
  await waitFor(
    'the job to be resumed and finish',
    async () => (await s.store.jobs.find(job.id))?.state === 'completed',
  );
  const done = await s.store.jobs.find(job.id);
  assert.equal(done?.attempts, 2, 'claimed by the dead instance, then by exactly one other');
  assert.equal(done?.succeeded, 500);
  assert.equal(countWhere(s, 'Account', 'Name', 'Lease-'), 500);
  assert.equal(s.sf.accounting.count('collections.create'), 3, 'each call made once');

  // One key, a request on each instance: the second gets the first's answer.
  const body = JSON.stringify({ data: [{ Name: 'Across-1' }] });
  const headers = {
    authorization: `Bearer ${s.tokens.salesforce}`,
    'content-type': 'application/json',
    'idempotency-key': 'across-1',
  };
  const onFirst = await fetch(`${s.baseUrl}/v1/object/insert/Account`, { method: 'POST', headers, body });
  const onSecond = await fetch(`${secondUrl}/v1/object/insert/Account`, { method: 'POST', headers, body });
  assert.equal(onFirst.status, 200);
  assert.equal(onSecond.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(
    ((await onSecond.json()) as WriteAnswer).data,
    ((await onFirst.json()) as WriteAnswer).data,
  );
  const reused = await fetch(`${secondUrl}/v1/object/insert/Account`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ data: [{ Name: 'Across-2' }] }),
  });
  assert.equal(reused.status, 422);
  assert.equal(((await reused.json()) as ErrorBody).error.code, 'idempotency_key_reused');
  assert.equal(countWhere(s, 'Account', 'Name', 'Across-'), 1);
});
