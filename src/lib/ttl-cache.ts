import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.ts';
import { SingleFlight } from './single-flight.ts';

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * The service's one cache: entries expire `ttlMs` after they were stored (on the injected clock),
 * the least recently used go first beyond `max`, and concurrent misses of one key share one load.
 */
export class TtlCache<V> {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #lru: LRUCache<string, Entry<V>>;
  readonly #flight = new SingleFlight<V>();

  constructor(options: { ttlMs: number; max: number; clock: Pick<Clock, 'now'> }) {
    this.#clock = options.clock;
    this.#lru = new LRUCache<string, Entry<V>>({
      max: options.max,
      ttl: options.ttlMs,
      // Read the clock on every check: tests move it in steps smaller than any resolution.
      ttlResolution: 0,
      perf: { now: () => this.#clock.now() },
    });
  }

  get(key: string): V | undefined {
    return this.#lru.get(key)?.value;
  }

  set(key: string, value: V): void {
    this.#lru.set(key, { value, loadedAt: this.#clock.now() });
  }

  delete(key: string): void {
    this.#lru.delete(key);
  }

  /** Drops every entry whose key and value match. */
  deleteWhere(match: (key: string, value: V) => boolean): void {
    for (const [key, entry] of this.#lru.entries()) if (match(key, entry.value)) this.#lru.delete(key);
  }

  clear(): void {
    this.#lru.clear();
  }

  get size(): number {
    return this.#lru.size;
  }

  /** The cached value, or `load`'s (stored); concurrent misses of one key share one load. */
  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const entry = this.#lru.get(key);
    if (entry !== undefined) return entry.value;
    return this.#load(key, load);
  }

  /** Loads `key` again unless it was loaded less than `minAgeMs` ago; answers the (maybe unchanged) value. */
  async refresh(key: string, minAgeMs: number, load: () => Promise<V>): Promise<V> {
    const entry = this.#lru.get(key);
    if (entry !== undefined && entry.loadedAt + minAgeMs > this.#clock.now()) return entry.value;
    return this.#load(key, load);
  }

  #load(key: string, load: () => Promise<V>): Promise<V> {
    return this.#flight.run(key, async () => {
      const value = await load();
      this.set(key, value);
      return value;
    });
  }
}
