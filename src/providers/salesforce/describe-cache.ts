import type { Clock } from '../../lib/clock.ts';
import { SingleFlight } from '../../lib/single-flight.ts';

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * Describe results per connection, kept for a TTL: every `get` needs the object's field list, and
 * describes change rarely (a new custom field shows up after the TTL, or at once after
 * `invalidate`). Concurrent misses for one key share one CRM call.
 */
export class DescribeCache {
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #flight = new SingleFlight<unknown>();
  /** Bound on entries so a connection with thousands of objects cannot grow memory without limit. */
  readonly #maxEntries: number;

  constructor(options: { ttlMs: number; clock: Clock; maxEntries?: number }) {
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
    this.#maxEntries = options.maxEntries ?? 5_000;
  }

  async get<T>(connectionId: string, key: string, load: () => Promise<T>): Promise<T> {
    const fullKey = `${connectionId}\u0000${key}`;
    const entry = this.#entries.get(fullKey);
    if (entry !== undefined && entry.expiresAt > this.#clock.now()) return entry.value as T;
    return (await this.#flight.run(fullKey, async () => {
      const value = await load();
      if (this.#entries.size >= this.#maxEntries) this.#evictOne();
      this.#entries.set(fullKey, { value, expiresAt: this.#clock.now() + this.#ttlMs });
      return value;
    })) as T;
  }

  /** Drops one connection's entries (all of them, or those of one key). */
  invalidate(connectionId: string, key?: string): void {
    const prefix = `${connectionId}\u0000`;
    for (const k of this.#entries.keys()) {
      if (key === undefined ? k.startsWith(prefix) : k === `${prefix}${key}`) this.#entries.delete(k);
    }
  }

  #evictOne(): void {
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }
}
