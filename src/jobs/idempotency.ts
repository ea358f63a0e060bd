import { createHash } from 'node:crypto';
import { ApiError } from '../errors/index.ts';
import { type Clock, isoTime } from '../lib/clock.ts';
import { FINISHED_JOB_STATES, type JobRow, type Store } from '../store/types.ts';
import { readResults } from './reads.ts';
import { jobView } from './view.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
// Control characters (C0, DEL, C1): a key is an opaque printable string.
// biome-ignore lint/suspicious/noControlCharactersInRegex: this pattern exists to find them
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ON_THE_KEY = [{ path: 'header:idempotency-key' }];

/** A stored answer: what the first request answered, sent again on a replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type KeyClaim = { kind: 'new' } | { kind: 'replay'; answer: StoredAnswer };

/** The `Idempotency-Key` header of a request: undefined when absent, 400 when unusable. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  const reason =
    Array.isArray(raw) && raw.length > 1
      ? 'appears more than once'
      : value === undefined || value === ''
        ? 'is empty'
        : value.length > MAX_KEY_LENGTH
          ? `is longer than ${MAX_KEY_LENGTH} characters`
          : CONTROL.test(value)
            ? 'contains control characters'
            : undefined;
  if (reason !== undefined) {
    throw new ApiError(
      'invalid_idempotency_key',
      `The Idempotency-Key request header ${reason}. Send one key of 1 to ${MAX_KEY_LENGTH} printable characters, e.g. a UUID, unique per write.`,
      { details: ON_THE_KEY },
    );
  }
  return value;
}

/** The fingerprint of a request: same key with another fingerprint is a reused key. */
export function requestHash(parts: {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string | undefined>;
}): string {
  const h = createHash('sha256');
  h.update(`${parts.method.toUpperCase()} ${parts.path}\n`);
  for (const name of Object.keys(parts.headers).sort()) h.update(`${name}: ${parts.headers[name] ?? ''}\n`);
  h.update(JSON.stringify(parts.body ?? null));
  return h.digest('hex');
}

export interface IdempotencyOptions {
  keys: Store['idempotency'];
  jobs: Store['jobs'];
  clock: Clock;
  /** Keys are kept this long after their first use. */
  ttlMs: number;
  /** A request without a job renews its key this often; a key not renewed for this long was abandoned. */
  leaseMs: number;
}

/** Idempotency keys, per API token. Inserting the key row is the lock: one request wins, others find it. */
export class IdempotencyService {
  readonly #o: IdempotencyOptions;

  constructor(options: IdempotencyOptions) {
    this.#o = options;
  }

  /** Claims `key` for this request, or answers what the first request with it answered. */
  async claim(tokenId: string, key: string, hash: string, jobId: string | null): Promise<KeyClaim> {
    const now = this.#o.clock.now();
    const got = await this.#o.keys.claim({
      tokenId,
      key,
      requestHash: hash,
      jobId,
      leaseUntil: isoTime(now + this.#o.leaseMs),
      now: isoTime(now),
    });
    if (got.created) return { kind: 'new' };
    const row = got.row;
    /** Forgets the stored key (its request left nothing to replay) and claims it again. */
    const again = async () => {
      await this.#o.keys.release(tokenId, key);
      return this.claim(tokenId, key, hash, jobId);
    };
    if (Date.parse(row.createdAt) < now - this.#o.ttlMs) {
      // Expired but not pruned yet: it no longer exists.
      await this.#o.keys.prune(isoTime(now - this.#o.ttlMs));
      return again();
    }
    if (row.requestHash !== hash) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request (method, path, body or X-CRM-Proxy-Interface/Prefer headers). Use a new key for a new request.',
        { details: ON_THE_KEY },
      );
    }
    if (row.state === 'done' && row.status !== null) {
      const answer: StoredAnswer = {
        status: row.status,
        headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
        body: JSON.parse(row.body ?? 'null'),
      };
      if (row.status === 202 && row.jobId !== null) {
        // An accepted job: the replay shows the job as it is now.
        const job = await this.#o.jobs.find(row.jobId);
        if (job !== null) answer.body = jobView(job);
      }
      return { kind: 'replay', answer };
    }
    if (row.jobId !== null) {
      const job = await this.#o.jobs.find(row.jobId);
      if (job === null && Date.parse(row.leaseExpiresAt) <= now) {
        // The first request died before its job was stored: nothing was sent, so it starts over.
        return again();
      }
      if (job === null || !FINISHED_JOB_STATES.includes(job.state)) throw inProgress(job?.id ?? null);
      const answer = await this.#answerOfJob(job);
      // Refused before anything was written (bad input, rate limit, re-authorisation): not kept.
      return nothingApplied(answer.status) ? again() : { kind: 'replay', answer };
    }
    if (Date.parse(row.leaseExpiresAt) <= now) {
      throw new ApiError(
        'idempotency_key_outcome_unknown',
        'The first request with this Idempotency-Key was interrupted (the service stopped) before its answer was stored. The CRM may or may not have applied it: check the records in the CRM, then send the request again with a new key if it is still needed.',
        { details: ON_THE_KEY },
      );
    }
    throw inProgress(null);
  }

  /** The synchronous answer of a finished job, as its request would have got it. */
  async #answerOfJob(job: JobRow): Promise<StoredAnswer> {
    const headers: Record<string, string> = { 'x-crm-proxy-job-id': job.id };
    if (job.state === 'failed' && job.error !== null) {
      const { status, body } = JSON.parse(job.error) as { status: number; body: unknown };
      return { status, headers, body };
    }
    const data = await readResults(this.#o.jobs, job.id, 0, job.total);
    if (job.interface !== null) headers['x-crm-proxy-interface'] = job.interface;
    return { status: 200, headers, body: { data } };
  }

  async complete(tokenId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.#o.keys.complete(tokenId, key, {
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: JSON.stringify(answer.body),
    });
  }

  release(tokenId: string, key: string): Promise<void> {
    return this.#o.keys.release(tokenId, key);
  }

  /** Keeps the key of a request in progress alive until `fn` settles. */
  async holding<T>(tokenId: string, key: string, fn: () => Promise<T>): Promise<T> {
    const stop = new AbortController();
    const loop = (async () => {
      while (!stop.signal.aborted) {
        await this.#o.clock.sleep(this.#o.leaseMs / 3, stop.signal);
        if (stop.signal.aborted) return;
        await this.#o.keys
          .renew(tokenId, key, isoTime(this.#o.clock.now() + this.#o.leaseMs))
          .catch(() => {});
      }
    })();
    try {
      return await fn();
    } finally {
      stop.abort();
      await loop;
    }
  }

  prune(): Promise<number> {
    return this.#o.keys.prune(isoTime(this.#o.clock.now() - this.#o.ttlMs));
  }
}

/** Answers that say nothing was written: their key is released rather than kept. */
export function nothingApplied(status: number): boolean {
  return (status >= 400 && status < 500 && status !== 409) || status === 503;
}

function inProgress(jobId: string | null): ApiError {
  return new ApiError(
    'idempotency_key_in_progress',
    jobId === null
      ? 'A request with this Idempotency-Key is still running. Retry after the Retry-After delay to get its answer.'
      : `A request with this Idempotency-Key is still running as job ${jobId}. Follow it at GET /v1/jobs/${jobId}, or retry after the Retry-After delay to get its answer.`,
    {
      headers: { 'retry-after': '1' },
      details:
        jobId === null
          ? ON_THE_KEY
          : [{ path: 'header:idempotency-key', job_id: jobId, job_url: `/v1/jobs/${jobId}` }],
    },
  );
}
