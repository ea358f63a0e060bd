import { backoffMs } from '../../lib/backoff.ts';

/** What went wrong with one attempt: only `connect_failed` surely never reached the CRM. */
export type AttemptFailure =
  | { kind: 'connect_failed' | 'timeout' | 'connection_dropped'; idempotent: boolean }
  | { kind: 'status'; status: number; idempotent: boolean; retryAfterMs?: number };

export interface RetryDecision {
  retry: boolean;
  waitMs: number;
  reason: string;
}

export interface RetryPolicy {
  /** The first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A longer Retry-After is not waited for. */
  maxRetryAfterMs: number;
  random?: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

const RETRYABLE_READ_STATUS = new Set([500, 502, 503, 504]);

/**
 * Pure retry decision for one failed attempt (numbered from 1). Writes are resent only when the CRM
 * cannot have applied them (connection never opened, 429); one that timed out or got a 5xx may have been.
 */
export function decide(failure: AttemptFailure, attempt: number, policy: RetryPolicy): RetryDecision {
  const retry = (
    reason: string,
    waitMs = backoffMs(attempt, {
      baseMs: policy.baseDelayMs,
      maxMs: policy.maxDelayMs,
      random: policy.random,
    }),
  ): RetryDecision => ({ retry: true, waitMs, reason });
  const stop = (reason: string): RetryDecision => ({ retry: false, waitMs: 0, reason });
  if (attempt >= policy.maxAttempts) return stop(`gave up after ${attempt} attempts`);
  if (failure.kind === 'connect_failed') return retry('connection could not be opened');
  if (failure.kind !== 'status') {
    const what = failure.kind.replace('_', ' ');
    return failure.idempotent ? retry(`${what} on a read`) : stop(`${what} on a write may have been applied`);
  }
  const { status, retryAfterMs } = failure;
  const tooLong = retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs;
  if (status === 429) {
    if (retryAfterMs === undefined) return retry('rate limited');
    return tooLong
      ? stop('rate limited; Retry-After is too long to wait')
      : retry('rate limited; honouring Retry-After', retryAfterMs);
  }
  if (!RETRYABLE_READ_STATUS.has(status)) return stop(`status ${status} is not retryable`);
  if (!failure.idempotent) return stop(`status ${status} on a write may have been applied`);
  if (tooLong) return stop('Retry-After is too long to wait');
  return retry(`status ${status} on a read`, retryAfterMs);
}

/** Retry-After (delta-seconds or an HTTP date) as milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
