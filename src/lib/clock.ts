/**
 * Time source: reading the time and waiting. Injected everywhere, so expiry, pacing, polling and
 * retries are testable without real waits (tests pass a clock they move on themselves).
 */
export interface Clock {
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (ms <= 0 || signal?.aborted === true) {
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** A clock that only tells the time (tests that shift `now`) waits in real time. */
export function withSystemSleep(clock: Pick<Clock, 'now'> & Partial<Pick<Clock, 'sleep'>>): Clock {
  const sleep = clock.sleep === undefined ? systemClock.sleep : clock.sleep.bind(clock);
  return { now: () => clock.now(), sleep };
}
