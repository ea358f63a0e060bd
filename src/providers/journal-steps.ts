import type { JobHook } from './adapter.ts';

/**
 * One CRM call of a durable job, checkpointed in its journal: `sending` (since when) before the call
 * goes out, `done` with its results once answered. A call found `sending` after a crash may have
 * reached the CRM; each writer decides what that means for its records.
 */
type StepEntry<R> = { state: 'sending'; at?: string } | { state: 'done'; results: R };

type StepState<R> =
  | { kind: 'done'; results: R }
  | { kind: 'interrupted'; since: string | undefined }
  | { kind: 'new' };

/** Without a job every call is new and nothing is kept; with `now`, `sending` entries carry their time. */
export class JournalSteps<R> {
  private readonly job: JobHook | undefined;
  private readonly now?: () => string;
  constructor(job: JobHook | undefined, now?: () => string) {
    this.job = job;
    this.now = now;
  }

  async state(key: string): Promise<StepState<R>> {
    type Stored = { state?: StepEntry<R>['state']; at?: string; results?: R } | null | undefined;
    const entry = (await this.job?.journal.get(key)) as Stored;
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
    await this.job?.journal.set(key, { state: 'done', results } satisfies StepEntry<R>);
  }

  /** Runs a new call between its two checkpoints. */
  async run(key: string, send: () => Promise<R>, since?: string): Promise<R> {
    await this.sending(key, since);
    const results = await send();
    await this.done(key, results);
    return results;
  }
}
