import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';

test('closing the service lets in-flight requests finish', async (t) => {
  const s = await startStack(t);
  const [id] = s.sf.org.insert('Account', [{ Name: 'Slow' }]).map((r) => r.id);
  assert.ok(id !== undefined);
  await s.api('/v1/describe/Account');
  s.sf.realism.update({ latencyMs: 400 });
  const inFlight = s.api<{ data: Array<{ Id: string }> }>('/v1/object/get/Account', {
    body: { data: { ids: [id] } },
  });
  // Let the request reach the sandbox, then stop the service while it waits for the answer.
  await waitFor('the request to reach the sandbox', () => s.sf.accounting.count('collections.retrieve') > 0);
  const closed = s.close();
  const answer = await inFlight;
  await closed;
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data[0]?.Id, id);
  await assert.rejects(fetch(`${s.baseUrl}/healthz`));
});

test('the stack runs on PostgreSQL too', async (t) => {
  const s = await startStack(t, { postgres: true });
  assert.equal(s.store.dialect, 'postgres');
  const [id] = s.sf.org.insert('Account', [{ Name: 'On Postgres' }]).map((r) => r.id);
  const answer = await s.api<{ data: Array<{ Name: string }> }>('/v1/object/get/Account', {
    body: { data: { ids: [id], fields: ['Name'] } },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data[0]?.Name, 'On Postgres');
  const ready = await s.api<{ status: string }>('/readyz', { method: 'GET', token: null });
  assert.equal(ready.body.status, 'ready');
});
