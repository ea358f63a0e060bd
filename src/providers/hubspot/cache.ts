import type { Clock } from '../../lib/clock.ts';
import { SingleFlight } from '../../lib/single-flight.ts';

interface Entry {
  value: unknown;
  loadedAt: number;
}

/**
 * Per-connection lists (property names, custom object schemas) kept for a TTL. Concurrent misses
 * of one key share one HubSpot call; `refresh` reloads a key that is older than a minimum age, so
 * a name created a moment ago is found without letting typos hammer HubSpot.
 */
export class TtlCache {
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #flight = new SingleFlight<unknown>();

  constructor(options: { ttlMs: number; clock: Clock }) {
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.loadedAt + this.#ttlMs > this.#clock.now()) return entry.value as T;
    return this.#load(key, load);
  }

  /** Reloads `key` unless it was loaded less than `minAgeMs` ago; answers the (possibly unchanged) value. */
  async refresh<T>(key: string, minAgeMs: number, load: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.loadedAt + minAgeMs > this.#clock.now()) return entry.value as T;
    return this.#load(key, load);
  }

  invalidate(key: string): void {
    this.#entries.delete(key);
  }

  async #load<T>(key: string, load: () => Promise<T>): Promise<T> {
    return (await this.#flight.run(key, async () => {
      const value = await load();
      this.#entries.set(key, { value, loadedAt: this.#clock.now() });
      return value;
    })) as T;
  }
}
