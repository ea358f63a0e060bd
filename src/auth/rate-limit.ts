import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { SharedState } from '../lib/shared-state.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per API token. */
  perSecond: number;
  /** Requests a token may send at once after being idle. */
  burst: number;
}

/**
 * Token buckets by key: `burst` tokens at once, then one more each `refillMs`. Full buckets (idle
 * keys) are dropped past 100,000 keys, so memory stays bounded.
 */
export class TokenBuckets {
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  constructor(limit: { burst: number; refillMs: number }) {
    this.#burst = limit.burst;
    this.#refillMs = limit.refillMs;
  }

  #level(key: string, now: number): number {
    const b = this.#buckets.get(key);
    if (b === undefined) return this.#burst;
    return Math.min(this.#burst, b.tokens + (now - b.at) / this.#refillMs);
  }

  /** Seconds to wait for a token; 0 when there is one now. */
  waitSeconds(key: string, now: number): number {
    const level = this.#level(key, now);
    return level >= 1 ? 0 : Math.max(1, Math.ceil(((1 - level) * this.#refillMs) / 1000));
  }

  /** Takes a token (an empty bucket stays empty). */
  take(key: string, now: number): void {
    this.#buckets.set(key, { tokens: Math.max(0, this.#level(key, now) - 1), at: now });
    if (this.#buckets.size > 100_000) {
      for (const [k] of this.#buckets) if (this.#level(k, now) >= this.#burst) this.#buckets.delete(k);
    }
  }
}

/**
 * The service's own rate limit: a token bucket per API token. It protects the shared CRM allowance
 * from one runaway client; 429 with Retry-After when empty. In memory (per instance), or, with a
 * shared state (Redis), one bucket per token across all instances; only then is `take` async.
 */
export class RateLimiter {
  readonly #options: RateLimitOptions;
  readonly #clock: Clock;
  readonly #buckets: TokenBuckets;
  readonly #shared: SharedState | null;

  constructor(options: RateLimitOptions, clock: Clock, shared: SharedState | null = null) {
    this.#options = options;
    this.#clock = clock;
    this.#buckets = new TokenBuckets({ burst: options.burst, refillMs: 1000 / options.perSecond });
    this.#shared = shared;
  }

  /** Takes one request from the token's bucket, or throws 429 (a promise of either when shared). */
  take(key: string): void | Promise<void> {
    if (this.#shared !== null) return this.#takeShared(this.#shared, key);
    const now = this.#clock.now();
    const wait = this.#buckets.waitSeconds(key, now);
    if (wait > 0) throw this.#refusal(wait);
    this.#buckets.take(key, now);
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
}
