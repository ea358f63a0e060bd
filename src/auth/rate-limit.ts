import { ApiError } from '../errors/index.ts';
import type { Clock } from '../lib/clock.ts';
import { LocalSharedState, type SharedState } from '../lib/shared-state.ts';

export interface RateLimitOptions {
  /** Sustained requests per second per API token. */
  perSecond: number;
  /** Requests a token may send at once after being idle. */
  burst: number;
}

/**
 * A token bucket per API token, so one runaway client cannot spend the shared CRM allowance: per
 * instance in memory, or across instances with a shared state (Redis; only then is `take` async).
 */
export class RateLimiter {
  readonly #options: RateLimitOptions;
  readonly #shared: SharedState;

  constructor(options: RateLimitOptions, clock: Pick<Clock, 'now'>, shared: SharedState | null = null) {
    this.#options = options;
    this.#shared = shared ?? new LocalSharedState(() => clock.now());
  }

  /** Takes one request from the token's bucket, or throws 429 (a promise of either when shared). */
  take(key: string): void | Promise<void> {
    const wait = this.#shared.takeToken(key, this.#options.perSecond, this.#options.burst);
    if (typeof wait !== 'number') return wait.then((ms) => this.#check(ms));
    this.#check(wait);
  }

  #check(waitMs: number): void {
    if (waitMs === 0) return;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many requests for this API token (limit ${this.#options.perSecond}/s, bursts of ${this.#options.burst}). Retry after ${retryAfter} s.`,
      {
        headers: { 'retry-after': String(retryAfter) },
        details: [{ limit_per_second: this.#options.perSecond, burst: this.#options.burst }],
      },
    );
  }
}
