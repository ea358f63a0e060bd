import { ApiError } from '../../errors/index.ts';
import type { Clock } from '../../lib/clock.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per API token. */
  perSecond: number;
  /** Requests a token may send at once after being idle. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * The service's own rate limit: a token bucket per API token, in memory (per instance). It
 * protects the shared CRM allowance from one runaway client; 429 with Retry-After when empty.
 */
export class RateLimiter {
  readonly #options: RateLimitOptions;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
  }

  /** Takes one request from the token's bucket, or throws 429. */
  take(key: string): void {
    const now = this.#clock.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#options.burst, updatedAt: now };
    const refill = ((now - bucket.updatedAt) / 1000) * this.#options.perSecond;
    bucket.tokens = Math.min(this.#options.burst, bucket.tokens + refill);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(key, bucket);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#options.perSecond));
      throw new ApiError(
        'rate_limited',
        `Too many requests for this API token (limit ${this.#options.perSecond}/s, bursts of ${this.#options.burst}). Retry after ${retryAfter} s.`,
        {
          headers: { 'retry-after': String(retryAfter) },
          details: [{ limit_per_second: this.#options.perSecond, burst: this.#options.burst }],
        },
      );
    }
    bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 100_000) this.#sweep(now);
  }

  /** Drops full buckets (idle tokens) so memory stays bounded. */
  #sweep(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      const full =
        bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.#options.perSecond >= this.#options.burst;
      if (full) this.#buckets.delete(key);
    }
  }
}
