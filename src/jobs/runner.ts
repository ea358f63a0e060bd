import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Connection } from '../domain/connection.ts';
import type { WriteAnswer } from '../domain/operations.ts';
import { ApiError, toErrorBody } from '../errors/index.ts';
import { AdmissionQueue } from '../lib/admission.ts';
import { withCallContext } from '../lib/call-context.ts';
import { type Clock, isoTime } from '../lib/clock.ts';
import type { OperationDeps } from '../operations/deps.ts';
import { type BatchWrite, runBatchWrite, sizeOf } from '../operations/writes.ts';
import type { JobHook } from '../providers/adapter.ts';
import type { JobRow, JobState, Store } from '../store/types.ts';
import { progressWriter } from './progress.ts';
import { countsOf, storeResults } from './reads.ts';
import { readInput, storedInput } from './stored-input.ts';

export interface JobRunnerOptions {
  jobs: Store['jobs'];
  operations: OperationDeps;
  loadConnection(id: string): Promise<Connection | null>;
  clock: Clock;
  logger: Logger;
  /** A job whose instance died is resumed within this long of the death. */
  leaseMs: number;
  /** How often this instance looks for jobs without a live lease (under half of `leaseMs`). */
  sweepMs: number;
  /** Finished jobs and their results are deleted this long after they end. */
  retentionMs: number;
  /** Runs periodically with the sweep (idempotency keys are pruned by their own service). */
  onPrune: () => Promise<void>;
  /** Records of one connection's jobs run here at once; more wait holding only their id, not their input. */
  recordsInFlight: number;
}

/** What a job started by `submit` brings along; `write` is let go of when the job has to wait. */
interface Known {
  connection: Connection;
  write?: BatchWrite | undefined;
}

/** How a job ended, for the request that waits for it in this process. */
export type JobOutcome = { ok: true; answer: WriteAnswer } | { ok: false; error: unknown };

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * Runs batch writes as durable jobs, each a row in the store run by the holder of its lease. When
 * an instance dies, another's sweep claims the job and runs it again with the same input and
 * journal, which makes the re-run safe.
 */
export class JobRunner {
  readonly owner = `inst_${randomUUID()}`;
  readonly #o: JobRunnerOptions;
  readonly #running = new Map<string, { done: Promise<JobOutcome>; cancel: AbortController }>();
  readonly #stop = new AbortController();
  /** Per connection: the jobs running here and those waiting their turn. */
  readonly #admissions = new Map<string, { queue: AdmissionQueue; jobs: number }>();
  #sweeping: Promise<void> | undefined;
  #lastPrune = 0;

  constructor(options: JobRunnerOptions) {
    this.#o = options;
  }

  /** The lease in the store: `leaseMs` less a sweep and the moment a claimed job takes to restart. */
  get #holdMs(): number {
    const { leaseMs, sweepMs } = this.#o;
    return Math.max(leaseMs - sweepMs - Math.min(1000, leaseMs / 10), 1);
  }

  #iso(offsetMs = 0): string {
    return isoTime(this.#o.clock.now() + offsetMs);
  }

  /** Stores a new job under this process's lease and starts it here when its connection has room. */
  async submit(params: {
    id: string;
    tokenId: string;
    connectionId: string;
    requestId: string | null;
    write: BatchWrite;
    /** The request's connection, already loaded (a resumed job loads it from the store). */
    connection: Connection;
  }): Promise<{ job: JobRow; done: Promise<JobOutcome> }> {
    const { write, connection, ...given } = params;
    const job = await this.#o.jobs.insert({
      ...given,
      operation: write.operation,
      objectName: write.input.objectName ?? null,
      ...(await storedInput(write)),
      total: sizeOf(write),
      now: this.#iso(),
      lease: { owner: this.owner, until: this.#iso(this.#holdMs) },
    });
    return { job, done: this.#start(job.id, { connection, write }) };
  }

  /** Marks a cancel in the store (seen by the lease holder when it renews) and cancels it here at once. */
  async cancel(id: string): Promise<void> {
    await this.#o.jobs.requestCancel(id, this.#iso());
    this.#running.get(id)?.cancel.abort();
  }

  /** Claims and runs jobs left without a live lease, now and every `sweepMs`, until `close`. */
  start(): void {
    this.#sweeping ??= this.#sweepLoop();
  }

  /** Stops claiming; jobs still running here for 2 s more keep their lease, then another instance resumes them. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#sweeping;
    const running = [...this.#running.values()].map((r) => r.done);
    if (running.length === 0) return;
    const timer = new AbortController();
    await Promise.race([Promise.allSettled(running), this.#o.clock.sleep(2000, timer.signal)]);
    timer.abort();
  }

  /** One sweep: claim what is claimable. Exposed for tests that drive it. */
  async sweep(): Promise<void> {
    const ids = await this.#o.jobs.claimable(this.#iso(), 20);
    for (const id of ids) if (!this.#running.has(id)) this.#start(id);
    if (this.#o.clock.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = this.#o.clock.now();
      await this.#o.jobs.prune(this.#iso(-this.#o.retentionMs));
      await this.#o.onPrune();
    }
  }

  async #sweepLoop(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      await this.sweep().catch((err: unknown) => this.#o.logger.warn({ err }, 'job sweep failed'));
      await this.#o.clock.sleep(Math.max(this.#o.sweepMs, 50), signal);
    }
  }

  #start(id: string, known?: Known): Promise<JobOutcome> {
    const cancel = new AbortController();
    const done = this.#run(id, cancel, known).finally(() => this.#running.delete(id));
    // Nobody may be waiting: the outcome is in the store either way.
    done.catch(() => {});
    this.#running.set(id, { done, cancel });
    return done;
  }

  async #run(id: string, cancel: AbortController, known?: Known): Promise<JobOutcome> {
    const { jobs } = this.#o;
    // A swept job is claimed before it waits its turn; a submitted one when its turn comes.
    const claim = () => jobs.claim(id, this.owner, this.#iso(), this.#iso(this.#holdMs));
    const elsewhere: JobOutcome = { ok: false, error: new Error('job runs elsewhere') };
    if (known === undefined && !(await claim())) return elsewhere;
    let job = await jobs.find(id);
    if (job === null) return { ok: false, error: new Error('job vanished') };

    if (job.cancelRequested) cancel.abort();
    const lost = new AbortController();
    const leaseLoop = this.#keepLease(id, cancel, lost);
    const log = this.#o.logger.child({ jobId: id, ...(job.requestId ? { requestId: job.requestId } : {}) });
    // One queue per connection while any of its jobs is here, or the room would count twice.
    const held = this.#admissions.get(job.connectionId) ?? {
      queue: new AdmissionQueue(this.#o.recordsInFlight),
      jobs: 0,
    };
    this.#admissions.set(job.connectionId, held);
    held.jobs += 1;
    const total = job.total;
    const atOnce = held.queue.fits(total);
    // Only a job that starts at once keeps its parsed input; one that waits reads it back.
    let knownWrite = atOnce ? known?.write : undefined;
    if (known !== undefined) known.write = undefined;
    if (!atOnce) log.info({ operation: job.operation, total }, 'job waiting for its turn');
    // The turn is given back while the job only waits on the CRM (`away`); a cancel or stop ends the wait.
    const enterTurn = () => held.queue.enter(total, AbortSignal.any([cancel.signal, this.#stop.signal]));
    const turn = { leave: await enterTurn() };
    const away = async <T>(wait: () => Promise<T>): Promise<T> => {
      turn.leave?.();
      turn.leave = undefined;
      try {
        return await wait();
      } finally {
        // Back in line before reading the outcome; a cancelled or stopping job goes on without.
        turn.leave = await enterTurn();
      }
    };
    try {
      if (lost.signal.aborted) return { ok: false, error: new Error('lease lost') };
      if (turn.leave === undefined && this.#stop.signal.aborted && !cancel.signal.aborted) {
        // Stopping: the job never started here; its lease runs out and an instance resumes it.
        return { ok: false, error: new Error('instance stopping') };
      }
      if (known !== undefined) {
        if (!(await claim())) return elsewhere;
        job = (await jobs.find(id)) ?? job;
      }
      return await this.#execute(job, log, known?.connection, knownWrite, cancel, lost, away);
    } finally {
      knownWrite = undefined;
      turn.leave?.();
      held.jobs -= 1;
      if (held.jobs === 0) this.#admissions.delete(job.connectionId);
      lost.abort();
      await leaseLoop;
    }
  }

  async #execute(
    job: JobRow,
    log: Logger,
    known: Connection | undefined,
    knownWrite: BatchWrite | undefined,
    cancel: AbortController,
    lost: AbortController,
    away: JobHook['away'],
  ): Promise<JobOutcome> {
    const { jobs } = this.#o;
    const { id } = job;
    log.info({ operation: job.operation, total: job.total, attempt: job.attempts }, 'job started');
    const progress = progressWriter(this.#o.clock, (counts, via) =>
      jobs.progress(id, this.owner, counts, via, this.#iso()),
    );
    const hook: JobHook = {
      jobId: id,
      signal: cancel.signal,
      progress: progress.update,
      crmJob: (crmJobId) => jobs.addCrmJobId(id, crmJobId, this.#iso()),
      away,
      journal: {
        get: async (key) => {
          const v = await jobs.journalGet(id, key);
          return v === undefined ? undefined : JSON.parse(v);
        },
        set: (key, value) => jobs.journalSet(id, key, JSON.stringify(value), this.#iso()),
      },
    };
    try {
      const connection = known ?? (await this.#o.loadConnection(job.connectionId));
      if (connection === null) {
        throw new ApiError('not_found', `The job's connection ${job.connectionId} no longer exists.`);
      }
      const write =
        knownWrite ?? ({ operation: job.operation, input: await readInput(jobs, job) } as BatchWrite);
      const answer = await withCallContext({ jobId: id, requestId: job.requestId ?? undefined }, () =>
        runBatchWrite(this.#o.operations, connection, write, hook),
      );
      await progress.stop();
      if (lost.signal.aborted) throw new Error('lease lost');
      await storeResults(jobs, id, answer.data);
      const state: JobState = cancel.signal.aborted ? 'cancelled' : 'completed';
      const counts = countsOf(answer.data);
      await jobs.finish(id, this.owner, { state, counts, iface: answer.via }, this.#iso());
      log.info({ state, ...counts }, 'job finished');
      return { ok: true, answer };
    } catch (error) {
      await progress.stop();
      // Another instance owns it now, or this one is stopping: its outcome is theirs to write.
      if (lost.signal.aborted || this.#stop.signal.aborted) return { ok: false, error };
      // A 5xx is logged with its cause, anything else with its code only.
      const { status, body } = toErrorBody(error, job.requestId ?? id);
      if (status >= 500 && !(error instanceof ApiError)) log.error({ err: error }, 'job failed');
      else log.warn({ code: body.error.code }, 'job failed');
      const counts = { processed: 0, succeeded: 0, failed: 0 };
      const outcome = { state: 'failed' as const, counts, error: JSON.stringify({ status, body }) };
      await jobs.finish(id, this.owner, outcome, this.#iso()).catch(() => {});
      return { ok: false, error };
    }
  }

  /** Renews the lease every third of it; notices a cancel asked for on any instance. */
  async #keepLease(id: string, cancel: AbortController, lost: AbortController): Promise<void> {
    const { jobs, clock } = this.#o;
    const leaseMs = this.#holdMs;
    while (!lost.signal.aborted) {
      await clock.sleep(leaseMs / 3, lost.signal);
      if (lost.signal.aborted) return;
      const held = await jobs.renew(id, this.owner, this.#iso(leaseMs)).catch(() => undefined);
      if (held === null) {
        lost.abort();
        cancel.abort();
        return;
      }
      if (held?.cancelRequested) cancel.abort();
    }
  }
}
