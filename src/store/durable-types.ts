// Row shapes and repository contracts of durable writes: jobs, their results and journal, and
// idempotency keys. Timestamps are ISO-8601 UTC text, JSON columns are text (input pages: gzipped).

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const FINISHED_JOB_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

export interface JobCounts {
  processed: number;
  succeeded: number;
  failed: number;
}

export interface JobRow extends JobCounts {
  id: string;
  tokenId: string;
  connectionId: string;
  requestId: string | null;
  operation: string;
  objectName: string | null;
  state: JobState;
  interface: string | null;
  total: number;
  crmJobIds: string[];
  cancelRequested: boolean;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  attempts: number;
  /** JSON text of the error answer when the job failed as a whole. */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

export interface NewJobRow {
  id: string;
  tokenId: string;
  connectionId: string;
  requestId: string | null;
  operation: string;
  objectName: string | null;
  /** The job row's input text (src/jobs/stored-input.ts: the input without its list). */
  input: string;
  /** The input's list in pages (gzipped JSON arrays), stored with the row in one transaction. */
  inputPages?: readonly Uint8Array[];
  total: number;
  now: string;
  /**
   * The instance that stored the job holds its lease from the start, until `leaseUntil`: the job
   * stays `queued` while it waits its turn there, and no other instance's sweep takes it.
   */
  lease?: { owner: string; until: string };
}

export interface JobsRepository {
  insert(row: NewJobRow): Promise<JobRow>;
  /** The job without its input (which may be megabytes). */
  find(id: string): Promise<JobRow | null>;
  /** The job row's input text, as stored; null when there is no such job. */
  input(id: string): Promise<string | null>;
  /** One page of the job's input list (numbered from 0), as stored; undefined when there is none. */
  inputPage(id: string, page: number): Promise<Uint8Array | undefined>;
  /** A token's jobs, newest first, after the (createdAt, id) of the previous page's last. */
  list(filter: {
    tokenId?: string;
    limit: number;
    after?: { createdAt: string; id: string };
  }): Promise<JobRow[]>;
  /**
   * Starts the job (`running`) under `owner`'s lease when the lease is unowned, expired or already
   * `owner`'s, and the job is not finished; true when taken.
   */
  claim(id: string, owner: string, now: string, leaseUntil: string): Promise<boolean>;
  /** Extends a lease still held on an unfinished job (queued or running); null when it is no longer held. */
  renew(id: string, owner: string, leaseUntil: string): Promise<{ cancelRequested: boolean } | null>;
  /** Unfinished jobs whose lease is free or expired, oldest first. */
  claimable(now: string, limit: number): Promise<string[]>;
  progress(id: string, owner: string, counts: JobCounts, iface: string | null, now: string): Promise<void>;
  addCrmJobId(id: string, crmJobId: string, now: string): Promise<void>;
  finish(
    id: string,
    owner: string,
    outcome: { state: JobState; counts: JobCounts; iface: string | null; error: string | null },
    now: string,
  ): Promise<boolean>;
  /** Marks a cancel; a queued job nobody runs is cancelled at once. */
  requestCancel(id: string, now: string): Promise<void>;
  /** Results in pieces: `first` is the input position of each piece's first result. */
  putResults(id: string, pieces: Array<{ piece: number; first: number; results: string }>): Promise<void>;
  /** Pieces overlapping positions [from, to). */
  resultPieces(id: string, from: number, to: number): Promise<Array<{ first: number; results: string }>>;
  journalGet(id: string, key: string): Promise<string | undefined>;
  journalSet(id: string, key: string, value: string, now: string): Promise<void>;
  /** Deletes jobs finished before `before` (their input pages, results and journal with them); the count. */
  prune(before: string): Promise<number>;
  /** How many jobs the store holds in each state (metrics). */
  countByState(): Promise<Record<string, number>>;
}

export interface IdempotencyRow {
  tokenId: string;
  key: string;
  requestHash: string;
  state: 'in_progress' | 'done';
  status: number | null;
  /** JSON text of the answer's headers that matter. */
  headers: string | null;
  body: string | null;
  jobId: string | null;
  leaseExpiresAt: string;
  createdAt: string;
}

export interface IdempotencyRepository {
  /** Inserts the key in progress; when it exists, the existing row (the insert is the lock). */
  claim(row: {
    tokenId: string;
    key: string;
    requestHash: string;
    /** Set when the request runs as a job: the id it will have. */
    jobId: string | null;
    leaseUntil: string;
    now: string;
  }): Promise<{ created: true } | { created: false; row: IdempotencyRow }>;
  complete(
    tokenId: string,
    key: string,
    answer: { status: number; headers: string; body: string },
  ): Promise<void>;
  renew(tokenId: string, key: string, leaseUntil: string): Promise<void>;
  /** Forgets a key whose request never started (refused input): the client may fix it and use it again. */
  release(tokenId: string, key: string): Promise<void>;
  prune(before: string): Promise<number>;
}
