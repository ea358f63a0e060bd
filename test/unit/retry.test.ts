import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decide, parseRetryAfter, type RetryPolicy } from '../../src/providers/client/retry.ts';

const policy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 100,
  maxDelayMs: 1000,
  maxRetryAfterMs: 5000,
  random: () => 0.5,
};

test('reads are retried on 5xx, timeouts and dropped connections, with growing backoff', () => {
  const first = decide({ kind: 'status', status: 503, idempotent: true }, 1, policy);
  const second = decide({ kind: 'status', status: 502, idempotent: true }, 2, policy);
  assert.equal(first.retry, true);
  assert.equal(second.retry, true);
  assert.equal(first.waitMs, 75); // 100 → half fixed + half jitter at 0.5
  assert.equal(second.waitMs, 150);
  assert.equal(decide({ kind: 'timeout', idempotent: true }, 1, policy).retry, true);
  assert.equal(decide({ kind: 'connection_dropped', idempotent: true }, 1, policy).retry, true);
});

test('writes are never retried when the CRM may have applied them', () => {
  for (const failure of [
    { kind: 'status', status: 500, idempotent: false },
    { kind: 'status', status: 503, idempotent: false },
    { kind: 'timeout', idempotent: false },
    { kind: 'connection_dropped', idempotent: false },
  ] as const) {
    const d = decide(failure, 1, policy);
    assert.equal(d.retry, false, JSON.stringify(failure));
    assert.match(d.reason, /may have been applied/);
  }
});

test('a write is retried when the request never reached the CRM, or was refused with 429', () => {
  assert.equal(decide({ kind: 'connect_failed', idempotent: false }, 1, policy).retry, true);
  assert.equal(decide({ kind: 'status', status: 429, idempotent: false }, 1, policy).retry, true);
});

test('Retry-After is honoured, and not waited for when too long', () => {
  const d = decide({ kind: 'status', status: 429, idempotent: true, retryAfterMs: 2000 }, 1, policy);
  assert.deepEqual([d.retry, d.waitMs], [true, 2000]);
  const long = decide({ kind: 'status', status: 429, idempotent: true, retryAfterMs: 60_000 }, 1, policy);
  assert.equal(long.retry, false);
  const on503 = decide({ kind: 'status', status: 503, idempotent: true, retryAfterMs: 1200 }, 1, policy);
  assert.deepEqual([on503.retry, on503.waitMs], [true, 1200]);
});

test('client errors are not retried, and attempts are bounded', () => {
  assert.equal(decide({ kind: 'status', status: 400, idempotent: true }, 1, policy).retry, false);
  assert.equal(decide({ kind: 'status', status: 404, idempotent: true }, 1, policy).retry, false);
  const last = decide({ kind: 'status', status: 503, idempotent: true }, 3, policy);
  assert.equal(last.retry, false);
  assert.match(last.reason, /gave up after 3/);
});

test('backoff is capped and jitter stays within [half, full]', () => {
  const low = decide({ kind: 'timeout', idempotent: true }, 2, {
    ...policy,
    maxAttempts: 10,
    random: () => 0,
  });
  const high = decide({ kind: 'timeout', idempotent: true }, 2, {
    ...policy,
    maxAttempts: 10,
    random: () => 0.999,
  });
  assert.equal(low.waitMs, 100);
  assert.equal(high.waitMs, 200);
  const capped = decide({ kind: 'timeout', idempotent: true }, 9, {
    ...policy,
    maxAttempts: 10,
    random: () => 0.999,
  });
  assert.equal(capped.waitMs, 1000);
});

test('Retry-After parses seconds and HTTP dates', () => {
  assert.equal(parseRetryAfter('3'), 3000);
  assert.equal(parseRetryAfter(undefined), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now), 10_000);
});
