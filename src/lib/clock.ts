import { setTimeout as delay } from 'node:timers/promises';

/** Time source, injected everywhere so expiry, pacing, polling and retries are testable without real waits. */
export interface Clock {
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // An abort rejects the timer's promise; a sleep ends early instead.
  sleep: (ms, signal) =>
    ms <= 0 || signal?.aborted === true
      ? Promise.resolve()
      : delay(ms, undefined, { signal }).catch(() => {}),
};

let isoSecond = Number.NaN;
let isoPrefix = '';

/** `new Date(ms).toISOString()`, cheaper once per request: the date and second are formatted once a second. */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    const full = new Date(ms).toISOString();
    // Years outside 0000–9999 have a longer form; they are formatted whole.
    if (full.length !== 24) return full;
    isoSecond = second;
    isoPrefix = full.slice(0, 20);
  }
  return `${isoPrefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
}
