// Polling with a deadline. The deadline only guards against a hang: it is generous so that a busy
// machine never trips it, and no test measures time with it.

export const POLL_DEADLINE_MS = 30_000;

const pause = (ms: number) =>
  new Promise<void>((resolve) => (ms <= 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));

/** True as soon as `check()` holds, false if it still does not after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = POLL_DEADLINE_MS, intervalMs = 10 } = {},
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await pause(intervalMs);
  }
}

/** Resolves when `check()` holds; throws naming `what` if it still does not after the deadline. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  if (!(await eventually(check, options))) throw new Error(`gave up waiting for ${what}`);
}
