import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TtlCache } from '../../src/lib/ttl-cache.ts';
import { ManualClock } from '../helpers/manual-clock.ts';

/** A load the test settles by hand, counting how often it was started. */
function gate<V>() {
  let starts = 0;
  let settle: { resolve: (v: V) => void; reject: (e: Error) => void } | undefined;
  const load = () => {
    starts += 1;
    return new Promise<V>((resolve, reject) => {
      settle = { resolve, reject };
    });
  };
  return {
    load,
    starts: () => starts,
    resolve: (v: V) => settle?.resolve(v),
    reject: (e: Error) => settle?.reject(e),
  };
}

test('concurrent misses of one key share one load, and the value is kept until its ttl', async () => {
  const clock = new ManualClock();
  const cache = new TtlCache<string>({ ttlMs: 1000, max: 10, clock });
  const g = gate<string>();
  const both = Promise.all([cache.getOrLoad('k', g.load), cache.getOrLoad('k', g.load)]);
  g.resolve('v1');
  assert.deepEqual(await both, ['v1', 'v1']);
  assert.equal(g.starts(), 1);
  assert.equal(await cache.getOrLoad('k', g.load), 'v1');
  assert.equal(g.starts(), 1);
  await clock.advance(1001);
  assert.equal(cache.get('k'), undefined);
});

test('refresh reloads only past the minimum age, and a failed refresh keeps the old entry', async () => {
  const clock = new ManualClock();
  const cache = new TtlCache<string>({ ttlMs: 60_000, max: 10, clock });
  cache.set('k', 'old');
  const g = gate<string>();
  assert.equal(await cache.refresh('k', 500, g.load), 'old');
  assert.equal(g.starts(), 0);
  await clock.advance(500);
  const failing = cache.refresh('k', 500, g.load);
  // While the refresh runs, readers still see the old value.
  assert.equal(cache.get('k'), 'old');
  g.reject(new Error('crm down'));
  await assert.rejects(failing, /crm down/);
  assert.equal(cache.get('k'), 'old');
  const ok = cache.refresh('k', 500, g.load);
  g.resolve('new');
  assert.equal(await ok, 'new');
  assert.equal(cache.get('k'), 'new');
});

test('a key deleted during its load is not stored again, and its waiters still get the answer', async () => {
  const clock = new ManualClock();
  const cache = new TtlCache<string>({ ttlMs: 60_000, max: 10, clock });
  const g = gate<string>();
  const pending = cache.getOrLoad('token', g.load);
  cache.deleteWhere((key) => key === 'token');
  cache.delete('token');
  g.resolve('loaded');
  assert.equal(await pending, 'loaded');
  assert.equal(cache.get('token'), undefined);
  assert.equal(cache.size, 0);
});
