/**
 * HubSpot's API limits, per account:
 * - a rolling 10-second burst window per app (190 for Professional/Enterprise private apps; 100 on
 *   Free/Starter; 110 for public OAuth apps), with `X-HubSpot-RateLimit-{Interval-Milliseconds,Max,Remaining}`;
 * - a daily allowance per account that only private-app calls draw on (public OAuth apps get no daily
 *   limit and no daily headers);
 * - CRM search: 5 calls per second per account, outside the 10-second window; its answers carry only
 *   the daily headers.
 * https://developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines
 */
export interface RateLimitOptions {
  /** Refuse calls over a limit (default true). When false, calls are still counted and the headers still sent. */
  enabled?: boolean;
  /** Calls per app in any rolling 10 seconds (default 190). */
  perTenSeconds?: number;
  /** Private-app calls per account per UTC day (default 1,000,000). */
  daily?: number;
  /** Search calls per account in any rolling second (default 5). */
  searchPerSecond?: number;
  /** Milliseconds since the epoch; injectable so windows can be tested without waiting. */
  clock?: () => number;
}

export type RateLimitConfig = Required<Omit<RateLimitOptions, 'clock'>>;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  enabled: true,
  perTenSeconds: 190,
  daily: 1_000_000,
  searchPerSecond: 5,
};

export const TEN_SECONDS_MS = 10_000;
const SECOND_MS = 1_000;
const DAY_MS = 86_400_000;

export interface CallInput {
  /** The app the burst window belongs to (`oauth` or `private_app` here: one of each per portal). */
  app: string;
  search: boolean;
  /** Whether the call draws on the daily allowance (private-app tokens). */
  daily: boolean;
}

export type Policy = 'ten_secondly' | 'daily' | 'secondly';

export interface Decision {
  /** Null when the call is allowed. */
  refused: Policy | null;
  headers: Record<string, string>;
}

/** Timestamps of allowed calls within the last `windowMs`, oldest first. */
class SlidingWindow {
  #times: number[] = [];
  readonly windowMs: number;
  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }

  count(now: number): number {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.#times.length && (this.#times[drop] as number) <= from) drop += 1;
    if (drop > 0) this.#times.splice(0, drop);
    return this.#times.length;
  }

  /** Calls within the last `ms` (ms ≤ windowMs). */
  countWithin(now: number, ms: number): number {
    return this.#times.filter((t) => t > now - ms).length;
  }

  add(now: number): void {
    this.#times.push(now);
  }
}

/** Counters of one portal. Pure apart from the injected clock, so windows can be tested without waiting. */
export class RateLimiter {
  #config: RateLimitConfig;
  readonly #clock: () => number;
  #burst = new Map<string, SlidingWindow>();
  #search = new SlidingWindow(SECOND_MS);
  #day = -1;
  #dailyUsed = 0;

  constructor(options: RateLimitOptions = {}) {
    const { clock, ...limits } = options;
    this.#config = { ...DEFAULT_RATE_LIMITS, ...limits };
    this.#clock = clock ?? Date.now;
  }

  get config(): RateLimitConfig {
    return { ...this.#config };
  }

  update(options: Partial<RateLimitConfig>): RateLimitConfig {
    this.#config = { ...this.#config, ...options };
    return this.config;
  }

  reset(): void {
    this.#burst.clear();
    this.#search = new SlidingWindow(SECOND_MS);
    this.#dailyUsed = 0;
  }

  usage(): { dailyUsed: number; search: number; burst: Record<string, number> } {
    const now = this.#clock();
    this.#rollDay(now);
    return {
      dailyUsed: this.#dailyUsed,
      search: this.#search.count(now),
      burst: Object.fromEntries([...this.#burst].map(([app, w]) => [app, w.count(now)])),
    };
  }

  /** Decides one call and, when allowed, counts it. */
  check(call: CallInput): Decision {
    const now = this.#clock();
    this.#rollDay(now);
    const c = this.#config;
    const dailyOver = call.daily && this.#dailyUsed >= c.daily;
    if (call.search) {
      const over = this.#search.count(now) >= c.searchPerSecond;
      const refused: Policy | null = !c.enabled ? null : dailyOver ? 'daily' : over ? 'secondly' : null;
      if (refused === null) this.#count(this.#search, call, now);
      return { refused, headers: this.#dailyHeaders(call) };
    }
    const window = this.#window(call.app);
    const over = window.count(now) >= c.perTenSeconds;
    const refused: Policy | null = !c.enabled ? null : dailyOver ? 'daily' : over ? 'ten_secondly' : null;
    if (refused === null) this.#count(window, call, now);
    // Captured answers still carry the deprecated per-second view: a tenth of the burst limit.
    const secondly = Math.ceil(c.perTenSeconds / 10);
    return {
      refused,
      headers: {
        ...this.#dailyHeaders(call),
        'X-HubSpot-RateLimit-Interval-Milliseconds': String(TEN_SECONDS_MS),
        'X-HubSpot-RateLimit-Max': String(c.perTenSeconds),
        'X-HubSpot-RateLimit-Remaining': String(Math.max(0, c.perTenSeconds - window.count(now))),
        'X-HubSpot-RateLimit-Secondly': String(secondly),
        'X-HubSpot-RateLimit-Secondly-Remaining': String(
          Math.max(0, secondly - window.countWithin(now, SECOND_MS)),
        ),
      },
    };
  }

  #count(window: SlidingWindow, call: CallInput, now: number): void {
    window.add(now);
    if (call.daily) this.#dailyUsed += 1;
  }

  #window(app: string): SlidingWindow {
    let w = this.#burst.get(app);
    if (w === undefined) {
      w = new SlidingWindow(TEN_SECONDS_MS);
      this.#burst.set(app, w);
    }
    return w;
  }

  /** The daily allowance starts again at midnight (UTC here; HubSpot uses the account's time zone). */
  #rollDay(now: number): void {
    const day = Math.floor(now / DAY_MS);
    if (day !== this.#day) {
      this.#day = day;
      this.#dailyUsed = 0;
    }
  }

  #dailyHeaders(call: CallInput): Record<string, string> {
    if (!call.daily) return {};
    return {
      'X-HubSpot-RateLimit-Daily': String(this.#config.daily),
      'X-HubSpot-RateLimit-Daily-Remaining': String(Math.max(0, this.#config.daily - this.#dailyUsed)),
    };
  }
}
