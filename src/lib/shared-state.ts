// What instances behind one load balancer must agree on (rate-limit buckets, CRM call windows,
// concurrency places, notices): in process (`LocalSharedState`) or on Redis (`RedisSharedState`).

/** `local`: nothing shared (no Redis configured); `shared`: Redis answers; `degraded`: Redis configured but unreachable. */
export type SharedMode = 'local' | 'shared' | 'degraded';

export type SlotAnswer =
  /** A slot is held under `id`; `count` calls (this one included) are in the window. */
  | { ok: true; id: string; count: number }
  /** No slot: try again after `waitMs`. */
  | { ok: false; waitMs: number; count: number };

/** A notice handler; `null` means "anything may have changed" (sent after notices may have been missed). */
export type NoticeHandler = (message: string | null) => void;

export interface SharedState {
  mode(): SharedMode;
  /** Takes a token of bucket `key` (`perSecond`, at most `burst`) and answers 0, or the ms until one is there. */
  takeToken(key: string, perSecond: number, burst: number): number | Promise<number>;
  /** A slot in window `key` unless `max` calls were sent in the last `windowMs` or it is blocked; always, unshared. */
  reserveSlot(key: string, max: number, windowMs: number): Promise<SlotAnswer>;
  /** The call holding slot `id` is over: its slot leaves the window `windowMs` from now. */
  finishSlot(key: string, id: string, windowMs: number): Promise<void>;
  /** Nothing leaves through window `key` for `ms` (the CRM answered 429). */
  block(key: string, ms: number): Promise<void>;
  /** A place among `max` for `leaseMs` at most, or null when all are taken. Always a place when nothing is shared. */
  acquirePlace(key: string, max: number, leaseMs: number): Promise<string | null>;
  /** Gives a place back; instances waiting for one of `key` hear it on `PLACES_FREED` (message: the key). */
  releasePlace(key: string, id: string): Promise<void>;
  /** Moves the counter `key` (awaited: every instance reads the new value from then on). */
  bump(key: string): Promise<void>;
  /** The counter `key`; a value no counter takes while the shared state cannot be read. */
  counter(key: string): Promise<string>;
  /** Tells every instance (this one included) on `channel`. */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: NoticeHandler): void;
  close(): Promise<void>;
}

/** The channel on which a freed place of a concurrency cap is announced (message: the cap's key). */
export const PLACES_FREED = 'places-freed';

/** Token buckets by key: `burst` at once, then one each `refillMs`. Full (idle) ones are dropped past 100,000 keys. */
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

  waitMs(key: string, now: number): number {
    const level = this.#level(key, now);
    return level >= 1 ? 0 : Math.max(1, Math.ceil((1 - level) * this.#refillMs));
  }

  /** Takes a token (an empty bucket stays empty). */
  take(key: string, now: number): void {
    this.#buckets.set(key, { tokens: Math.max(0, this.#level(key, now) - 1), at: now });
    if (this.#buckets.size > 100_000) {
      for (const [k] of this.#buckets) if (this.#level(k, now) >= this.#burst) this.#buckets.delete(k);
    }
  }
}

/** Everything in this process: the limits are per instance, notices reach only this instance. */
export class LocalSharedState implements SharedState {
  readonly #now: () => number;
  readonly #buckets = new Map<string, TokenBuckets>();
  readonly #handlers = new Map<string, NoticeHandler[]>();
  #slots = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  mode(): SharedMode {
    return 'local';
  }

  takeToken(key: string, perSecond: number, burst: number): number {
    const limit = `${perSecond}/${burst}`;
    let buckets = this.#buckets.get(limit);
    if (buckets === undefined) {
      buckets = new TokenBuckets({ burst, refillMs: 1000 / perSecond });
      this.#buckets.set(limit, buckets);
    }
    const now = this.#now();
    const wait = buckets.waitMs(key, now);
    if (wait === 0) buckets.take(key, now);
    return wait;
  }

  async reserveSlot(): Promise<SlotAnswer> {
    this.#slots += 1;
    return { ok: true, id: String(this.#slots), count: 0 };
  }

  async finishSlot(): Promise<void> {}

  async block(): Promise<void> {}

  async acquirePlace(): Promise<string | null> {
    this.#slots += 1;
    return String(this.#slots);
  }

  async releasePlace(): Promise<void> {}

  readonly #counters = new Map<string, number>();

  async bump(key: string): Promise<void> {
    this.#counters.set(key, (this.#counters.get(key) ?? 0) + 1);
  }

  async counter(key: string): Promise<string> {
    return String(this.#counters.get(key) ?? 0);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.deliver(channel, message);
  }

  subscribe(channel: string, handler: NoticeHandler): void {
    this.#handlers.set(channel, [...(this.#handlers.get(channel) ?? []), handler]);
  }

  /** Hands a notice to this process's handlers of `channel` (or to all of them with `null`). */
  deliver(channel: string | null, message: string | null): void {
    const lists = channel === null ? [...this.#handlers.values()] : [this.#handlers.get(channel) ?? []];
    for (const handlers of lists) for (const handler of handlers) handler(message);
  }

  async close(): Promise<void> {}
}
