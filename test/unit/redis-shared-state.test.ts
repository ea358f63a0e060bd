// The Redis shared state against a redis-server of the test's own: what two instances (two
// clients) share, and the per-instance fallback while the server is stopped.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startLocalRedis } from '../../scripts/local-cluster.ts';
import { RedisSharedState } from '../../src/lib/redis-shared-state.ts';
import type { SharedState } from '../../src/lib/shared-state.ts';
import { eventually } from '../helpers/wait.ts';

function client(url: string, lines: string[]): RedisSharedState {
  return new RedisSharedState({
    url,
    now: () => Date.now(),
    commandTimeoutMs: 2000,
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
  });
}

test('two clients share buckets, windows, places and notices; with the server stopped each falls back alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'crm-proxy-redis-'));
  const redis = await startLocalRedis(dir);
  const logA: string[] = [];
  const a = client(redis.url, logA);
  const b = client(redis.url, []);
  t.after(async () => {
    await a.close();
    await b.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const both: SharedState[] = [a, b];
  // Connected once each has answered a command.
  assert.ok(
    await eventually(async () => {
      await a.counter('probe');
      await b.counter('probe');
      return both.every((s) => s.mode() === 'shared');
    }),
  );

  // One bucket of 10 (refilled at 1/s) for the key, whichever client takes: 10 pass, then waits.
  const taken = await Promise.all(Array.from({ length: 30 }, (_, i) => both[i % 2]?.takeToken('tok', 1, 10)));
  assert.equal(taken.filter((w) => w === 0).length, 10);
  assert.ok(taken.filter((w) => w !== 0).every((w) => (w ?? 0) > 0 && (w ?? 0) <= 1000));

  // One window of 3 calls per 10 s: the fourth reservation waits, and a 429's block holds everyone.
  const slots = await Promise.all([a, b, a, b].map((s) => s.reserveSlot('hs:1', 3, 10_000)));
  // Which client's call reaches Redis last is not fixed; the count is.
  assert.equal(slots.filter((r) => r.ok).length, 3);
  await a.block('hs:2', 5_000);
  const blocked = await b.reserveSlot('hs:2', 3, 10_000);
  assert.ok(!blocked.ok && blocked.waitMs > 0 && blocked.waitMs <= 5_000);

  // Two places: a third caller gets none until one is given back, and the release is announced.
  const freed: Array<string | null> = [];
  b.subscribe('places-freed', (key) => freed.push(key));
  const p1 = await a.acquirePlace('conn', 2, 60_000);
  const p2 = await b.acquirePlace('conn', 2, 60_000);
  assert.ok(p1 !== null && p2 !== null);
  assert.equal(await a.acquirePlace('conn', 2, 60_000), null);
  await a.releasePlace('conn', p1);
  assert.ok(await eventually(() => freed.includes('conn')));
  assert.ok((await b.acquirePlace('conn', 2, 60_000)) !== null);

  // Notices reach the other client; the counter moves for both.
  const heard: Array<string | null> = [];
  b.subscribe('describes', (m) => heard.push(m));
  await eventually(async () => {
    await a.publish('describes', 'conn_1');
    return heard.includes('conn_1');
  });
  const before = await b.counter('changes');
  await a.bump('changes');
  assert.notEqual(await b.counter('changes'), before);

  // Stopped: both degrade, never throw, and each keeps a bucket of its own.
  await redis.stop();
  assert.ok(await eventually(() => both.every((s) => s.mode() === 'degraded')));
  const alone = await Promise.all(
    Array.from({ length: 30 }, (_, i) => both[i % 2]?.takeToken('tok2', 1, 10)),
  );
  assert.equal(alone.filter((w) => w === 0).length, 20, 'ten per client');
  assert.ok((await a.reserveSlot('hs:1', 3, 10_000)).ok, 'pacing is left to each instance');
  assert.ok((await a.acquirePlace('conn', 2, 60_000)) !== null);
  assert.equal(await a.counter('changes'), 'down');
  assert.equal(logA.filter((l) => l.startsWith('redis: degraded')).length, 1);

  // Back: shared again, and subscribers hear that notices may have been missed (null).
  await redis.start();
  assert.ok(await eventually(() => heard.includes(null), { timeoutMs: 15_000 }));
  assert.ok(
    await eventually(
      async () => {
        await a.counter('probe');
        return a.mode() === 'shared';
      },
      { timeoutMs: 15_000 },
    ),
  );
  assert.equal(logA.filter((l) => l.startsWith('redis: connected')).length, 2);
});
