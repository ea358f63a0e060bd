import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Event-loop blocking in this process, which also runs the service (test/helpers/stack.ts starts
 * it in-process). It measures how long the loop could not run anything, not how long a request
 * took, so a busy neighbour process inflates it far less than wall time.
 */
export class LoopDelay {
  readonly #histogram: IntervalHistogram;

  constructor(resolutionMs = 10) {
    this.#histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.#histogram.enable();
  }

  /** Starts a new window. */
  reset(): void {
    this.#histogram.reset();
  }

  /** Longest single block of the loop since the last reset, in ms. */
  maxMs(): number {
    const max = this.#histogram.max;
    // An empty histogram reports a huge sentinel (no sample yet): no delay seen.
    return this.#histogram.count === 0 || !Number.isFinite(max) ? 0 : max / 1e6;
  }

  p99Ms(): number {
    return this.#histogram.count === 0 ? 0 : this.#histogram.percentile(99) / 1e6;
  }

  stop(): void {
    this.#histogram.disable();
  }
}
