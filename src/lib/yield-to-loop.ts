import { setImmediate } from 'node:timers/promises';

/**
 * Longest stretch of synchronous work between two yields. The service promises that no request
 * blocks its event loop for 50 ms; slices well under that leave room for the parts that cannot
 * be split (one JSON.stringify of an 8 MiB value, one JSON.parse of a CRM answer) on a slow or
 * busy machine.
 */
export const SLICE_MS = 8;

/**
 * When the current slice began. One for the whole process: work resumed after a yield, whatever
 * request it belongs to, shares the turn's slice (see `nextSlice`).
 */
let sliceStart = performance.now();

/**
 * True once the turn's slice of synchronous work is used up: the caller should
 * `await yieldToLoop()` so that other work (health checks, other requests' I/O) runs. Checking is
 * cheap and synchronous, so a loop can call it per item without a promise per item.
 */
export function sliceUsed(): boolean {
  return performance.now() - sliceStart >= SLICE_MS;
}

/**
 * Goes on only after the event loop has polled for I/O (health checks, other requests) and run
 * its timers, and once the turn has room left (see `nextSlice`).
 */
export function yieldToLoop(): Promise<void> {
  return nextSlice();
}

/**
 * Runs `work` over the ranges [start, end) of `size` items that make up `count`, yielding to the
 * event loop before a range once the turn's slice is used up: a long list never holds the loop for
 * more than a slice and a range's work, a short one costs no turn while the slice lasts.
 */
export async function inPages(
  count: number,
  size: number,
  work: (start: number, end: number) => void,
): Promise<void> {
  for (let start = 0; start < count; start += size) {
    if (sliceUsed()) await nextSlice();
    work(start, Math.min(start + size, count));
  }
}

/**
 * Yields (as `yieldToLoop`) only once the turn's slice is used up: placed before a short step that
 * many tasks may take in the same turn (a store write each of parallel CRM calls makes).
 */
export async function yieldIfDue(): Promise<void> {
  if (sliceUsed()) await nextSlice();
}

/**
 * One immediate is not a turn: work done in an I/O callback (a socket's data, a CRM's answer) and
 * an immediate it queues run in the same turn, the check phase following the poll with nothing in
 * between; an immediate queued from the check phase waits for the next turn. And tasks that yield
 * together (parallel CRM calls, pages of several requests) resume together, one after the other in
 * the same turn: the first starts a slice, the next ones go on while it lasts and wait for the next
 * turn once it is used up, so a turn holds about one slice of resumed work, not one per task.
 */
async function nextSlice(): Promise<void> {
  for (;;) {
    const waitFrom = performance.now();
    await setImmediate();
    await setImmediate();
    if (sliceStart < waitFrom) {
      sliceStart = performance.now();
      return;
    }
    if (!sliceUsed()) return;
  }
}
