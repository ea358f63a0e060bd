import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { SharedState } from '../lib/shared-state.ts';

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
 * The service's own rate limit: a token bucket per API token. It protects the shared CRM allowance
 * from one runaway client; 429 with Retry-After when empty. In memory (per instance), or, with a
 * shared state (Redis), one bucket per token across all instances; only then is `take` async.
 */
export class RateLimiter {
  readonly #options: RateLimitOptions;
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();
  readonly #shared: SharedState | null;

  constructor(options: RateLimitOptions, clock: Clock, shared: SharedState | null = null) {
    this.#options = options;
    this.#clock = clock;
    this.#shared = shared;
  }

  /** Takes one request from the token's bucket, or throws 429 (a promise of either when shared). */
  take(key: string): void | Promise<void> {
    if (this.#shared !== null) return this.#takeShared(this.#shared, key);
    const now = this.#clock.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#options.burst, updatedAt: now };
    const refill = ((now - bucket.updatedAt) / 1000) * this.#options.perSecond;
    bucket.tokens = Math.min(this.#options.burst, bucket.tokens + refill);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(key, bucket);
      throw this.#refusal(Math.max(1, Math.ceil((1 - bucket.tokens) / this.#options.perSecond)));
    }
    bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > 100_000) this.#sweep(now);
  }

  async #takeShared(shared: SharedState, key: string): Promise<void> {
    const waitMs = await shared.takeToken(key, this.#options.perSecond, this.#options.burst);
    if (waitMs > 0) throw this.#refusal(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  #refusal(retryAfter: number): ApiError {
    return new ApiError(
      'rate_limited',
      `Too many requests for this API token (limit ${this.#options.perSecond}/s, bursts of ${this.#options.burst}). Retry after ${retryAfter} s.`,
      {
        headers: { 'retry-after': String(retryAfter) },
        details: [{ limit_per_second: this.#options.perSecond, burst: this.#options.burst }],
      },
    );
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
