// The admission queue: work enters by weight within a capacity, in arrival order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdmissionQueue } from '../../src/lib/admission.ts';

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Nothing inside and nobody waiting: only then does any weight, however large, enter at once. */
const idle = (queue: AdmissionQueue) => queue.fits(Number.POSITIVE_INFINITY);

test('pieces enter while their weights fit; the next waits until enough has left', async () => {
  const queue = new AdmissionQueue(10);
  const a = await queue.enter(6);
  const b = await queue.enter(4);
  assert.ok(a !== undefined && b !== undefined);
  assert.equal(queue.fits(1), false);
  let entered = false;
  const c = queue.enter(5).then((leave) => {
    entered = true;
    return leave;
  });
  await settle();
  assert.equal(entered, false, 'no room for 5 while 10 are inside');
  b();
  await settle();
  assert.equal(entered, false, 'still only 4 free');
  a();
  await settle();
  assert.equal(entered, true);
  (await c)?.();
  assert.equal(idle(queue), true);
});

test('a piece heavier than the capacity enters alone; leaving twice counts once', async () => {
  const queue = new AdmissionQueue(10);
  const big = await queue.enter(25);
  assert.ok(big !== undefined);
  let entered = false;
  void queue.enter(1).then(() => {
    entered = true;
  });
  await settle();
  assert.equal(entered, false);
  big();
  big();
  await settle();
  assert.equal(entered, true);
});

test('arrival order: a light piece does not overtake a heavy one waiting before it', async () => {
  const queue = new AdmissionQueue(10);
  const first = await queue.enter(8);
  const order: string[] = [];
  const heavy = queue.enter(9).then((leave) => {
    order.push('heavy');
    return leave;
  });
  const light = queue.enter(1).then((leave) => {
    order.push('light');
    return leave;
  });
  await settle();
  assert.deepEqual(order, [], 'the light one would fit, but waits behind the heavy one');
  assert.equal(queue.fits(1), false);
  first?.();
  await settle();
  assert.deepEqual(order, ['heavy', 'light']);
  (await heavy)?.();
  (await light)?.();
  assert.equal(idle(queue), true);
});

test('a waiting piece whose signal aborts never enters, and the ones behind it move up', async () => {
  const queue = new AdmissionQueue(10);
  const first = await queue.enter(10);
  const stop = new AbortController();
  const aborted = queue.enter(10, stop.signal);
  let entered = false;
  const behind = queue.enter(1).then((leave) => {
    entered = true;
    return leave;
  });
  stop.abort();
  assert.equal(await aborted, undefined);
  first?.();
  await settle();
  assert.equal(entered, true);
  (await behind)?.();
  assert.equal(idle(queue), true);
  assert.equal(await queue.enter(1, AbortSignal.abort()).then((leave) => typeof leave), 'function');
});
