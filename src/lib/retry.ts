import type { Clock } from './clock.ts';

/** The one retry and polling loop: each caller's pure decision (`next`) run on the injected clock. */
export interface RetryPlan<T> {
  /** One attempt (numbered from 1). Errors it throws end the loop. */
  attempt(n: number): Promise<T>;
  /** Milliseconds to wait before attempt n + 1, or undefined to stop and answer `outcome`. */
  next(outcome: T, n: number): number | undefined;
}

export async function retrying<T>(clock: Pick<Clock, 'sleep'>, plan: RetryPlan<T>): Promise<T> {
  for (let n = 1; ; n++) {
    const outcome = await plan.attempt(n);
    const wait = plan.next(outcome, n);
    if (wait === undefined) return outcome;
    await clock.sleep(wait);
  }
}
