import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Clock } from '../../src/lib/clock.ts';

interface Sleep {
  at: number;
  wake: () => void;
}

/**
 * The one clock of a test stack: the service and both sandboxes read it, so HubSpot's pacing
 * windows and daily allowance, token expiry, leases, sweeps and job timers all move with it.
 * It runs with real time (so a test that never touches it sees ordinary behaviour), and a test
 * moves it on with `advance` or `fastForward` instead of waiting: every sleep that ends on the
 * way ends at once.
 */
export class StackClock implements Clock {
  #skipped = 0;
  readonly #sleeps = new Set<Sleep>();
  readonly #base: Pick<Clock, 'now'> & Partial<Pick<Clock, 'sleep'>>;

  /**
   * `base`: a test's own time source (a clock it sets, a `ManualClock`); its `now` plus what this
   * clock skipped is everyone's time, and its `sleep`, when it has one, everyone's waits.
   */
  constructor(base: Pick<Clock, 'now'> & Partial<Pick<Clock, 'sleep'>> = { now: () => Date.now() }) {
    this.#base = base;
  }

  now(): number {
    return this.#base.now() + this.#skipped;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#base.sleep !== undefined) return this.#base.sleep(ms, signal);
    if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const sleep: Sleep = { at: this.now() + ms, wake };
      const timer = setTimeout(wake, ms);
      const sleeps = this.#sleeps;
      sleeps.add(sleep);
      signal?.addEventListener('abort', wake, { once: true });
      function wake() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        sleeps.delete(sleep);
        resolve();
      }
    });
  }

  /** Sleeps not yet ended, for assertions that something is waiting. */
  get pending(): number {
    return this.#sleeps.size;
  }

  /** Moves the clock on by `ms` at once: every sleep that ends on the way ends now. */
  async advance(ms: number): Promise<void> {
    this.#skipped += ms;
    const now = this.now();
    for (const sleep of [...this.#sleeps]) if (sleep.at <= now) sleep.wake();
    await settle();
  }

  /**
   * Calls to these origins (the sandboxes) in flight, from undici's diagnostics channels: the clock
   * never jumps while one is, or the CRM would count a call at a later time than the service that
   * sent it. Returns the function that stops watching.
   */
  watchCalls(origins: readonly string[]): () => void {
    const watched = new Set(origins.map((o) => new URL(o).origin));
    const open = new WeakSet<object>();
    const created = (message: unknown) => {
      const request = (message as { request: { origin?: unknown } }).request;
      if (watched.has(originOf(request.origin))) {
        open.add(request);
        this.#inFlight += 1;
      }
    };
    const ended = (message: unknown) => {
      const request = (message as { request: object }).request;
      if (open.delete(request)) this.#inFlight -= 1;
    };
    subscribe('undici:request:create', created);
    subscribe('undici:request:trailers', ended);
    subscribe('undici:request:error', ended);
    return () => {
      unsubscribe('undici:request:create', created);
      unsubscribe('undici:request:trailers', ended);
      unsubscribe('undici:request:error', ended);
    };
  }

  #inFlight = 0;

  /**
   * Waits for `work`, moving the clock on to the next sleep whenever no call to a watched origin
   * is in flight: HubSpot's windows, retries after a 429 and timers pass without real waits, and
   * the service and the CRM still see each call at the same time. Several at once share one driver.
   */
  async fastForward<T>(work: Promise<T>): Promise<T> {
    this.#forwarding += 1;
    if (!this.#driving) void this.#drive();
    try {
      return await work;
    } finally {
      this.#forwarding -= 1;
    }
  }

  #forwarding = 0;
  #driving = false;

  async #drive(): Promise<void> {
    this.#driving = true;
    while (this.#forwarding > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (this.#forwarding === 0 || this.#inFlight > 0) continue;
      let next: Sleep | undefined;
      for (const sleep of this.#sleeps) if (next === undefined || sleep.at < next.at) next = sleep;
      if (next !== undefined) await this.advance(Math.max(0, next.at - this.now()));
    }
    this.#driving = false;
  }
}

function originOf(value: unknown): string {
  try {
    return new URL(String(value)).origin;
  } catch {
    return '';
  }
}

/** Lets every promise continuation and immediate that is ready run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
