import type { JobHook } from './adapter.ts';

/**
 * One CRM call of a durable job, checkpointed in the job's journal: `sending` (since when) before
 * the call goes out, `done` with its results once it is answered. A job resumed after a crash
 * reuses answered calls; a call found `sending` may have reached the CRM, and each writer decides
 * what that means for its records (sent again, reconciled, or answered as unknown).
 */
type StepEntry<R> = { state: 'sending'; at?: string } | { state: 'done'; results: R };

/** What the journal says of a call: answered (with its results), interrupted while sending, or new. */
type StepState<R> =
  | { kind: 'done'; results: R }
  | { kind: 'interrupted'; since: string | undefined }
  | { kind: 'new' };

/**
 * Reads and writes the checkpoints of a job's calls; without a job, every call is new and nothing
 * is kept. With `now` (the service's clock), `sending` entries carry their time, for writers that
 * reconcile what an interrupted call may have done since then.
 */
export class JournalSteps<R> {
  private readonly job: JobHook | undefined;
  private readonly now?: () => string;
  constructor(job: JobHook | undefined, now?: () => string) {
    this.job = job;
    this.now = now;
  }

  async state(key: string): Promise<StepState<R>> {
    if (this.job === undefined) return { kind: 'new' };
    const entry = (await this.job.journal.get(key)) as LegacyEntry<R> | undefined;
    if (entry === undefined || entry === null) return { kind: 'new' };
    // Entries without `state` were written by earlier versions: `{results}` or `{state: 'sending'}`.
    if (entry.state === 'done' || (entry.state === undefined && entry.results !== undefined)) {
      return { kind: 'done', results: entry.results as R };
    }
    return { kind: 'interrupted', since: entry.at };
  }

  /** Marks the call as being sent; `since` keeps the first send time of a call sent again. */
  async sending(key: string, since?: string): Promise<void> {
    const at = since ?? this.now?.();
    const entry: StepEntry<R> = at === undefined ? { state: 'sending' } : { state: 'sending', at };
    await this.job?.journal.set(key, entry);
  }

  async done(key: string, results: R): Promise<void> {
    const entry: StepEntry<R> = { state: 'done', results };
    await this.job?.journal.set(key, entry);
  }

  /** Runs a new call between its two checkpoints. */
  async run(key: string, send: () => Promise<R>, since?: string): Promise<R> {
    await this.sending(key, since);
    const results = await send();
    await this.done(key, results);
    return results;
  }
}

type LegacyEntry<R> = { state?: 'sending' | 'done'; at?: string; results?: R };
