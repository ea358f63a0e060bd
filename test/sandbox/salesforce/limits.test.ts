import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LimitsOptions, registerLimits } from '../../../sandbox/salesforce/limits/index.ts';
import { createSandboxApp, listen } from '../../../sandbox/shared/index.ts';

type T = { after: (fn: () => Promise<void>) => void };

/** Limits on a bare sandbox app with two data API routes: one answers at once, one waits to be released. */
async function start(t: T, options: LimitsOptions = {}) {
  const core = createSandboxApp({
    name: 'sf-limits-test',
    renderFault: (_f, _r, reply) => reply.code(500).send(),
  });
  const resets: (() => void)[] = [];
  const limits = registerLimits(core.app, { options, onReset: (fn) => resets.push(fn) });
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let entered = 0;
  const enteredWaiters: (() => void)[] = [];
  core.app.get('/services/data/v62.0/ping', async () => ({ ok: true }));
  core.app.get('/services/data/', async () => [{ version: '62.0' }]);
  core.app.get('/services/data/v62.0/hang', async () => {
    entered += 1;
    for (const w of enteredWaiters.splice(0)) w();
    await gate;
    return { ok: true };
  });
  const url = await listen(core.app);
  t.after(async () => {
    release();
    await core.app.close();
  });
  const untilEntered = async (n: number) => {
    while (entered < n) {
      await new Promise<void>((r) => {
        enteredWaiters.push(r);
      });
    }
  };
  return {
    url,
    limits,
    release,
    untilEntered,
    reset: () => {
      for (const f of resets) f();
    },
  };
}

test('every data API answer carries Sforce-Limit-Info; /limits reports the same usage', async (t) => {
  const { url } = await start(t, { dailyApiRequests: 15_000 });
  const a = await fetch(`${url}/services/data/v62.0/ping`);
  assert.equal(a.headers.get('sforce-limit-info'), 'api-usage=1/15000');
  const b = await fetch(`${url}/services/data/v62.0/ping`);
  assert.equal(b.headers.get('sforce-limit-info'), 'api-usage=2/15000');
  const versions = await fetch(`${url}/services/data/`);
  assert.equal(versions.headers.get('sforce-limit-info'), null);
  const res = await fetch(`${url}/services/data/v62.0/limits/`);
  assert.equal(res.headers.get('sforce-limit-info'), 'api-usage=3/15000');
  const body = (await res.json()) as Record<string, { Max: number; Remaining: number }>;
  assert.deepEqual(body.DailyApiRequests, { Max: 15_000, Remaining: 14_997 });
  assert.deepEqual(body.DailyBulkApiBatches, { Max: 15_000, Remaining: 15_000 });
  assert.deepEqual(body.DailyBulkV2QueryJobs, { Max: 10_000, Remaining: 10_000 });
  for (const [name, v] of Object.entries(body)) {
    assert.match(name, /^[A-Z][A-Za-z0-9]+$/);
    assert.deepEqual(Object.keys(v).sort(), ['Max', 'Remaining']);
  }
});

test('past the daily allowance every data API call is refused with 403 REQUEST_LIMIT_EXCEEDED', async (t) => {
  const { url, reset } = await start(t, { dailyApiRequests: 2 });
  assert.equal((await fetch(`${url}/services/data/v62.0/ping`)).status, 200);
  assert.equal((await fetch(`${url}/services/data/v62.0/ping`)).status, 200);
  const refused = await fetch(`${url}/services/data/v62.0/ping`);
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), [
    { message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' },
  ]);
  assert.equal(refused.headers.get('sforce-limit-info'), 'api-usage=2/2');
  assert.equal((await fetch(`${url}/services/data/v62.0/limits`)).status, 403);
  reset();
  assert.equal((await fetch(`${url}/services/data/v62.0/ping`)).status, 200);
});

test('too many concurrent long-running requests: the next one gets ConcurrentPerOrgLongTxn', {
  timeout: 20_000,
}, async (t) => {
  // Threshold 0: a request counts as long-running as soon as it is in flight.
  const { url, release, untilEntered, limits } = await start(t, {
    concurrentLongRunningLimit: 2,
    longRunningThresholdMs: 0,
  });
  const hanging = [fetch(`${url}/services/data/v62.0/hang`), fetch(`${url}/services/data/v62.0/hang`)];
  await untilEntered(2);
  assert.equal(limits.longRunning(), 2);
  const refused = await fetch(`${url}/services/data/v62.0/ping`);
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), [
    { message: 'ConcurrentPerOrgLongTxn Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' },
  ]);
  release();
  for (const r of await Promise.all(hanging)) assert.equal(r.status, 200);
  assert.equal((await fetch(`${url}/services/data/v62.0/ping`)).status, 200);
});

test('requests younger than the threshold never count as long-running', async (t) => {
  const { url, untilEntered, limits } = await start(t, {
    concurrentLongRunningLimit: 1,
    longRunningThresholdMs: 60_000,
  });
  const hanging = fetch(`${url}/services/data/v62.0/hang`);
  await untilEntered(1);
  assert.equal(limits.inFlight.size, 1);
  assert.equal(limits.longRunning(), 0);
  assert.equal((await fetch(`${url}/services/data/v62.0/ping`)).status, 200);
  void hanging.catch(() => {});
});
