import type { JobHook } from './adapter.ts';

/**
 * One CRM call of a durable job, checkpointed in the job's journal: `sending` (since when) before
 * the call goes out, `done` with its results once it is answered. A job resumed after a crash
 * reuses answered calls; a call found `sending` may have reached the CRM, and each writer decides
 * what that means for its records (sent again, reconciled, or answered as unknown). Version 0.1.0
 * wrote entries without `state`: `{results}` for an answered call, `{state: 'sending'}` otherwise.
 */
type StepEntry<R> = { state?: 'sending' | 'done'; at?: string; results?: R };

/** What the journal says of a call: answered (with its results), interrupted while sending, or new. */
export type StepState<R> =
  | { kind: 'done'; results: R }
  | { kind: 'interrupted'; since: string | undefined }
  | { kind: 'new' };

/**
 * Reads and writes the checkpoints of a job's calls; without a job, every call is new and nothing
 * is kept. With `now` (the service's clock), `sending` entries carry their time, for writers that
 * reconcile what an interrupted call may have done since then.
 */
export function journalSteps<R>(job: JobHook | undefined, now?: () => string) {
  const steps = {
    async state(key: string): Promise<StepState<R>> {
      const entry = (await job?.journal.get(key)) as StepEntry<R> | undefined | null;
      if (entry === undefined || entry === null) return { kind: 'new' };
      if (entry.state === 'done' || (entry.state === undefined && entry.results !== undefined)) {
        return { kind: 'done', results: entry.results as R };
      }
      return { kind: 'interrupted', since: entry.at };
    },
    /** Marks the call as being sent; `since` keeps the first send time of a call sent again. */
    async sending(key: string, since?: string): Promise<void> {
      // Without a time, `at` is left out of the stored JSON.
      await job?.journal.set(key, { state: 'sending', at: since ?? now?.() } satisfies StepEntry<R>);
    },
    async done(key: string, results: R): Promise<void> {
      await job?.journal.set(key, { state: 'done', results } satisfies StepEntry<R>);
    },
    /** Runs a new call between its two checkpoints. */
    async run(key: string, send: () => Promise<R>, since?: string): Promise<R> {
      await steps.sending(key, since);
      const results = await send();
      await steps.done(key, results);
      return results;
    },
  };
  return steps;
}
