import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/errors/index.ts';
import { retrying } from '../../src/lib/retry.ts';
import { afterAnswer } from '../../src/providers/hubspot/connection-state.ts';
import { nextPoll } from '../../src/providers/salesforce/bulk2.ts';
import { lockedPositions, lockRetryWait } from '../../src/providers/salesforce/writes.ts';
import { busyRetryWait } from '../../src/store/db.ts';
import { nextLockAttempt } from '../../src/store/repositories/locks.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { answer } from '../helpers/outbound.ts';

test('the shared loop waits on the clock between attempts and stops when the decision says so', async () => {
  const clock = new ManualClock();
  const started = clock.now();
  const seen: number[] = [];
  const outcome = await clock.run(
    retrying(clock, {
      attempt: async (n) => {
        seen.push(clock.now() - started);
        return n;
      },
      next: (n) => (n < 3 ? 100 * n : undefined),
    }),
  );
  assert.equal(outcome, 3);
  assert.deepEqual(seen, [0, 100, 300]);
});

test('an attempt that throws ends the loop with its error', async () => {
  const clock = new ManualClock();
  await assert.rejects(
    retrying(clock, {
      attempt: async () => {
        throw new Error('boom');
      },
      next: () => 1,
    }),
    /boom/,
  );
});

const budget = { maxAttempts: 3, maxRetryWaitMs: 2_000, fallbackWaitMs: 500 };

test('HubSpot 429s: Retry-After, the search window, the fallback, the budget and the daily limit', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  assert.deepEqual(
    afterAnswer(answer(200), 'standard', 1, 0, now, budget, () => null),
    { kind: 'answer' },
  );
  assert.deepEqual(
    afterAnswer(answer(429, { 'retry-after': '1' }), 'standard', 1, 0, now, budget, () => null),
    {
      kind: 'retry',
      waitMs: 1_000,
    },
  );
  assert.deepEqual(
    afterAnswer(answer(429), 'search', 1, 0, now, budget, () => null),
    { kind: 'retry', waitMs: 1_000 },
  );
  assert.deepEqual(
    afterAnswer(answer(429), 'standard', 1, 0, now, budget, () => null),
    { kind: 'retry', waitMs: 500 },
  );
  const spent = afterAnswer(answer(429), 'standard', 3, 0, now, budget, () => 4_000);
  assert.equal(spent.kind, 'refuse');
  if (spent.kind === 'refuse') assert.equal(spent.error.headers['retry-after'], '4');
  const tooLong = afterAnswer(answer(429), 'standard', 1, 1_800, now, budget, () => null);
  assert.equal(tooLong.kind, 'refuse');
  const daily = afterAnswer(
    answer(429, {}, { policyName: 'DAILY' }),
    'standard',
    1,
    0,
    now,
    budget,
    () => null,
  );
  assert.ok(daily.kind === 'refuse' && daily.error instanceof ApiError);
  if (daily.kind === 'refuse') assert.equal(daily.error.headers['retry-after'], String(12 * 3600));
});

test('Salesforce row locks: only locked records go again, two rounds with growing waits', () => {
  const locked = {
    success: false,
    errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW', message: 'locked', fields: [] }],
  };
  const other = {
    success: false,
    errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'x', fields: [] }],
  };
  assert.deepEqual(lockedPositions([{ success: true, errors: [] }, locked, other, locked]), [1, 3]);
  const half = () => 0.5;
  assert.equal(lockRetryWait(0, 1, half), undefined);
  assert.equal(lockRetryWait(2, 1, half), 150);
  assert.equal(lockRetryWait(2, 2, half), 300);
  assert.equal(lockRetryWait(2, 3, half), undefined);
});

test('Bulk job polling: growing waits up to the longest, then stop when done or past the deadline', () => {
  const options = { firstMs: 100, maxMs: 300, timeoutMs: 10_000 };
  assert.equal(nextPoll('Open', 0, 0, 0, options), 100);
  assert.equal(nextPoll('InProgress', 1, 0, 100, options), 150);
  assert.equal(nextPoll('InProgress', 5, 0, 1_000, options), 300);
  assert.equal(nextPoll('JobComplete', 2, 0, 500, options), undefined);
  assert.equal(nextPoll('InProgress', 9, 0, 10_001, options), undefined);
});

test('store waits: lock attempts double up to 200 ms within the deadline; SQLite busy retries', () => {
  assert.equal(nextLockAttempt(1, 0, 1_000), 5);
  assert.equal(nextLockAttempt(4, 0, 1_000), 40);
  assert.equal(nextLockAttempt(10, 0, 1_000), 200);
  assert.equal(nextLockAttempt(10, 990, 1_000), 10);
  assert.equal(nextLockAttempt(2, 1_000, 1_000), undefined);
  const busy = Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' });
  assert.equal(busyRetryWait(busy, 0, 100), 20);
  assert.equal(busyRetryWait(busy, 101, 100), undefined);
  assert.equal(busyRetryWait(new Error('other'), 0, 100), undefined);
});
