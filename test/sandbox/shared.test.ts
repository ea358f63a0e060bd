import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallAccounting } from '../../sandbox/shared/accounting.ts';
import { Realism } from '../../sandbox/shared/realism.ts';
import { createSandboxApp, listen } from '../../sandbox/shared/server.ts';

test('scripted faults fire on matching calls only, after skip, for `times` calls', () => {
  const r = new Realism();
  r.script([{ kind: 'error503', match: 'rest', skip: 1, times: 2 }]);
  assert.equal(r.nextFault('bulk2.upload'), null);
  assert.equal(r.nextFault('rest.query'), null); // skipped
  assert.equal(r.nextFault('rest.query'), 'error503');
  assert.equal(r.nextFault('rest.sobject.get'), 'error503');
  assert.equal(r.nextFault('rest.query'), null);
  assert.deepEqual(r.pendingFaults(), []);
});

test('random faults repeat under the same seed', () => {
  const draw = () => {
    const r = new Realism({ randomFaultRate: 0.3, randomFaultKinds: ['error500', 'lock'], seed: 7 });
    return Array.from({ length: 50 }, () => r.nextFault('x'));
  };
  const a = draw();
  assert.deepEqual(a, draw());
  assert.ok(a.some((f) => f !== null) && a.some((f) => f === null));
});

test('call accounting counts by exact kind and by prefix', () => {
  const acc = new CallAccounting();
  acc.record('rest.query');
  acc.record('rest.query');
  acc.record('rest.sobject.get');
  acc.record('bulk2.upload');
  assert.equal(acc.count('rest.query'), 2);
  assert.equal(acc.count('rest'), 3);
  assert.equal(acc.snapshot().total, 4);
});

test('control API drives accounting, faults and dropped connections over HTTP', async (t) => {
  const core = createSandboxApp({
    name: 'test',
    renderFault: (fault, _req, reply) => reply.code(fault === 'error500' ? 500 : 503).send({ fault }),
  });
  core.app.get('/ping', { config: { kind: 'ping' } }, async () => ({ ok: true }));
  const url = await listen(core.app);
  t.after(() => core.app.close());

  assert.equal((await fetch(`${url}/ping`)).status, 200);
  const faults = await fetch(`${url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults: [{ kind: 'error500', match: 'ping' }, { kind: 'drop' }] }),
  });
  assert.equal(faults.status, 200);
  const failed = await fetch(`${url}/ping`);
  assert.equal(failed.status, 500);
  assert.deepEqual(await failed.json(), { fault: 'error500' });
  await assert.rejects(fetch(`${url}/ping`));
  assert.equal((await fetch(`${url}/ping`)).status, 200);

  const calls = (await (await fetch(`${url}/__sandbox/calls`)).json()) as { byKind: Record<string, number> };
  assert.equal(calls.byKind['ping'], 4);

  const bad = await fetch(`${url}/__sandbox/realism`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ latencyMs: -1 }),
  });
  assert.equal(bad.status, 400);
});

test('drop_answer: the handler runs, then the connection is destroyed instead of the answer', async (t) => {
  const core = createSandboxApp({ name: 'test', renderFault: () => undefined });
  let applied = 0;
  core.app.post('/write', { config: { kind: 'write' } }, async () => {
    applied += 1;
    return { applied };
  });
  const url = await listen(core.app);
  t.after(() => core.app.close());
  core.realism.script([{ kind: 'drop_answer', match: 'write' }]);
  await assert.rejects(fetch(`${url}/write`, { method: 'POST' }));
  assert.equal(applied, 1);
  const next = await fetch(`${url}/write`, { method: 'POST' });
  assert.deepEqual(await next.json(), { applied: 2 });
});
