import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Linux's per-thread scheduler figures for this process's main thread (first field: ns on CPU). */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** CPU time of the main thread in ms, or undefined where the system does not tell it. */
function mainThreadCpuMs(): number | undefined {
  try {
    const ns = Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Event-loop blocking in this process, which also runs the service (test/helpers/stack.ts starts
 * it in-process). Two figures: the wall-clock delay of the loop (how long it could not run
 * anything), and, where Linux tells a thread's CPU time, the most CPU the main thread spent in one
 * turn (a timer due every millisecond notes it, so it runs once per turn). A busy neighbour
 * process stretches the first (a 60 ms turn that gets half a core lasts 120 ms) but not the
 * second, which is what the service itself holds the loop for; `maxMs` gives the second where
 * there is one.
 */
export class LoopDelay {
  readonly #histogram: ReturnType<typeof monitorEventLoopDelay>;
  readonly #ticker: NodeJS.Timeout | undefined;
  #lastCpu: number | undefined = mainThreadCpuMs();
  #maxTurnCpu = 0;

  constructor(resolutionMs = 10) {
    this.#histogram = monitorEventLoopDelay({ resolution: resolutionMs });
    this.#histogram.enable();
    if (this.#lastCpu !== undefined) {
      this.#ticker = setInterval(() => {
        const now = mainThreadCpuMs() ?? 0;
        this.#maxTurnCpu = Math.max(this.#maxTurnCpu, now - (this.#lastCpu ?? now));
        this.#lastCpu = now;
      }, 1);
    }
  }

  /** Starts a new window. */
  reset(): void {
    this.#histogram.reset();
    this.#maxTurnCpu = 0;
    this.#lastCpu = mainThreadCpuMs();
  }

  /** Longest block of the loop since the last reset, in ms: CPU of one turn where known, else wall. */
  maxMs(): number {
    return this.#ticker === undefined ? this.wallMaxMs() : this.#maxTurnCpu;
  }

  /** Longest wall-clock delay of the loop since the last reset, in ms. */
  wallMaxMs(): number {
    const max = this.#histogram.max;
    // An empty histogram reports a huge sentinel (no sample yet): no delay seen.
    return this.#histogram.count === 0 || !Number.isFinite(max) ? 0 : max / 1e6;
  }

  p99Ms(): number {
    return this.#histogram.count === 0 ? 0 : this.#histogram.percentile(99) / 1e6;
  }

  stop(): void {
    this.#histogram.disable();
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
  }
}
