import type { Clock } from '../../src/lib/clock.ts';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when told to: `sleep` waits for `advance` (or `run`) to reach its time.
 * Pacing, polling and retry waits under test take no real time and do not depend on machine load.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const timer: Timer = { at: this.#now + ms, seq: this.#seq++, resolve };
      this.#timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.#timers = this.#timers.filter((t) => t !== timer);
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Pending sleeps, for assertions that something is waiting. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time on by `ms`, waking every sleep that ends on the way, in order. */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      await settle();
      const next = this.#earliest();
      if (next === undefined || next.at > until) break;
      this.#fire(next);
    }
    this.#now = until;
    await settle();
  }

  /**
   * Runs `work` to its end, jumping time to the next pending sleep whenever nothing else can move.
   * Gives up after `maxJumps` jumps (a loop that never ends would otherwise hang the test).
   */
  async run<T>(work: Promise<T>, maxJumps = 100_000): Promise<T> {
    let settled = false;
    work.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    let idle = 0;
    for (let jumps = 0; jumps < maxJumps; ) {
      await settle();
      if (settled) return work;
      const next = this.#earliest();
      if (next === undefined) {
        // Waiting on something outside the clock (I/O): let it happen, but not forever.
        if (++idle > 1_000) throw new Error('ManualClock.run: nothing left to wake and the work is not done');
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      idle = 0;
      this.#fire(next);
      jumps++;
    }
    throw new Error(`ManualClock.run: not done after ${maxJumps} jumps`);
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers)
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }

  #fire(timer: Timer): void {
    this.#timers = this.#timers.filter((t) => t !== timer);
    this.#now = Math.max(this.#now, timer.at);
    timer.resolve();
  }
}

/** Lets every promise continuation and immediate that is ready run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
