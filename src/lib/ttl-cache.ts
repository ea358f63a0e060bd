import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.ts';

interface Entry<V> {
  value: V;
  loadedAt: number;
}

type Load<V> = () => Promise<V>;

/** The service's one cache (lru-cache): entries expire `ttlMs` after they are stored, on the injected clock. */
export class TtlCache<V> {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #lru: LRUCache<string, Entry<V>, Load<V>>;

  constructor(options: { ttlMs: number; max: number; clock: Pick<Clock, 'now'> }) {
    this.#clock = options.clock;
    this.#lru = new LRUCache<string, Entry<V>, Load<V>>({
      max: options.max,
      ttl: options.ttlMs,
      // Read the clock on every check: tests move it in steps smaller than any resolution.
      ttlResolution: 0,
      perf: { now: () => this.#clock.now() },
      fetchMethod: async (_key, _stale, { context }) => ({
        value: await context(),
        loadedAt: this.#clock.now(),
      }),
      // A failed refresh keeps the entry it meant to replace; the caller still sees the failure.
      noDeleteOnFetchRejection: true,
      // A key deleted during its load (a revoked token) is not stored, yet its waiters get the answer.
      ignoreFetchAbort: true,
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
  getOrLoad(key: string, load: Load<V>): Promise<V> {
    return this.#fetch(key, load, false);
  }

  /** Loads `key` again unless it was loaded less than `minAgeMs` ago; answers the (maybe unchanged) value. */
  refresh(key: string, minAgeMs: number, load: Load<V>): Promise<V> {
    const entry = this.#lru.get(key);
    if (entry !== undefined && entry.loadedAt + minAgeMs > this.#clock.now())
      return Promise.resolve(entry.value);
    return this.#fetch(key, load, true);
  }

  async #fetch(key: string, load: Load<V>, forceRefresh: boolean): Promise<V> {
    const entry = await this.#lru.fetch(key, { context: load, forceRefresh });
    // fetch answers undefined only when the load itself did, which Load<V> rules out.
    return (entry as Entry<V>).value;
  }
}
