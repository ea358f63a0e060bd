import { setImmediate } from 'node:timers/promises';

/**
 * Longest stretch of synchronous work between two yields. The service promises that no request
 * blocks its event loop for 100 ms; slices well under that leave room for the parts that cannot
 * be split (one JSON.parse of a piece, one string join) on a slow or busy machine.
 */
export const SLICE_MS = 8;

/**
 * Lets the event loop run other work (health checks, other requests' I/O) once the current slice
 * of synchronous work has lasted `sliceMs`. Checking is cheap, so it can be called per item.
 */
export class LoopYielder {
  #sliceStart = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** True when the current slice is used up: the caller should `await yielded()`. */
  get due(): boolean {
    return performance.now() - this.#sliceStart >= this.sliceMs;
  }

  /** Yields to the event loop (a whole turn, see `yieldToLoop`) and starts a new slice. */
  async yielded(): Promise<void> {
    await yieldToLoop();
    this.#sliceStart = performance.now();
  }
}

/**
 * Goes on only after the event loop has polled for I/O (health checks, other requests) and run
 * its timers. One immediate is not enough: work done in an I/O callback (a socket's data, a CRM's
 * answer) and an immediate it queues run in the same turn, the check phase following the poll
 * with nothing in between. An immediate queued from the check phase waits for the next turn.
 */
export async function yieldToLoop(): Promise<void> {
  await setImmediate();
  await setImmediate();
}
