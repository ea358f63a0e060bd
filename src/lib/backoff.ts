export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Random source in [0, 1); injectable for deterministic tests. */
  random?: (() => number) | undefined;
}

/** Exponential backoff with "equal jitter": half fixed, half random, so waits spread out without collapsing to zero. */
export function backoffMs(attempt: number, options: BackoffOptions): number {
  const exp = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(exp / 2 + random() * (exp / 2));
}
