import { AdmissionQueue } from './admission.ts';
import type { SharedState } from './shared-state.ts';

/** Places shared with other instances: the cap then holds for all of them together. */
export interface SharedPlaces {
  state: SharedState;
  key: string;
  /** A place held longer than this (its instance died) is given back. */
  leaseMs: number;
  /** Waits between attempts while every place is taken (the clock's sleep; ends early when `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** At most `concurrency` tasks at once, in arrival order; with Redis, also one of the places all instances share. */
export class ConcurrencyLimiter {
  readonly #concurrency: number;
  readonly #shared: SharedPlaces | undefined;
  readonly #local: AdmissionQueue;
  /** Tasks here waiting for a shared place; aborted when another instance frees one. */
  readonly #waiting = new Set<AbortController>();

  constructor(concurrency: number, shared?: SharedPlaces) {
    this.#concurrency = Math.max(1, concurrency);
    this.#local = new AdmissionQueue(this.#concurrency);
    this.#shared = shared?.state.mode() === 'local' ? undefined : shared;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    // Without an abort signal, entry always comes.
    const leave = (await this.#local.enter(1)) as () => void;
    let place: string | null = null;
    try {
      if (this.#shared !== undefined) place = await this.#sharedPlace(this.#shared);
      return await fn();
    } finally {
      if (place !== null) void this.#shared?.state.releasePlace(this.#shared.key, place);
      leave();
    }
  }

  /** A shared place was freed (by any instance): the longest waiter here tries again at once (one, not a herd). */
  placeFreed(): void {
    const [first] = this.#waiting;
    if (first === undefined) return;
    first.abort();
    this.#waiting.delete(first);
  }

  async #sharedPlace(shared: SharedPlaces): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const wake = new AbortController();
      this.#waiting.add(wake);
      try {
        const place = await shared.state.acquirePlace(shared.key, this.#concurrency, shared.leaseMs);
        if (place !== null) return place;
        // Woken by a freed place; the growing wait only covers a notice that got lost.
        if (!wake.signal.aborted)
          await shared.sleep(Math.min(250, 10 * 2 ** Math.min(attempt, 5)), wake.signal);
      } finally {
        this.#waiting.delete(wake);
      }
    }
  }
}
