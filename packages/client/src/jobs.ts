// Durable write jobs: read, list, page through results, cancel, wait.
import type { Client } from 'openapi-fetch';
import { unwrap } from './errors.ts';
import type { components, paths } from './schema.ts';

export type Job = components['schemas']['Job'];
export type RecordResult = components['schemas']['RecordResult'];

const FINISHED: ReadonlySet<Job['state']> = new Set(['completed', 'failed', 'cancelled']);

export interface WaitOptions {
  /** Pause between polls (default 500 ms, or the service's `Retry-After`). */
  intervalMs?: number;
  /** Give up after this long (default: never) with an Error naming the job. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
}

/** Durable write jobs of this API token. */
export class JobsApi {
  readonly #raw: Client<paths>;

  constructor(raw: Client<paths>) {
    this.#raw = raw;
  }

  async get(id: string): Promise<Job> {
    return unwrap(await this.#raw.GET('/v1/jobs/{job_id}', { params: { path: { job_id: id } } }));
  }

  /** One page of the token's jobs, newest first. */
  async list(page: PageOptions = {}): Promise<{ data: Job[]; next_cursor: string | null }> {
    return unwrap(await this.#raw.GET('/v1/jobs', { params: { query: pageQuery(page) } }));
  }

  /** Every job of the token, newest first, page after page. */
  async *all(limit?: number): AsyncGenerator<Job, void, undefined> {
    yield* paginate((cursor) => this.list({ ...(limit === undefined ? {} : { limit }), ...cursor }));
  }

  /** One page of a finished job's per-record results, in input order. */
  async results(
    id: string,
    page: PageOptions = {},
  ): Promise<{ data: RecordResult[]; next_cursor: string | null }> {
    return unwrap(
      await this.#raw.GET('/v1/jobs/{job_id}/results', {
        params: { path: { job_id: id }, query: pageQuery(page) },
      }),
    );
  }

  /** Every per-record result of a finished job, page after page. */
  async *allResults(id: string, limit?: number): AsyncGenerator<RecordResult, void, undefined> {
    yield* paginate((cursor) => this.results(id, { ...(limit === undefined ? {} : { limit }), ...cursor }));
  }

  /** Asks the job to stop; records not yet sent end `CRM_PROXY_CANCELLED`. */
  async cancel(id: string): Promise<Job> {
    return unwrap(await this.#raw.DELETE('/v1/jobs/{job_id}', { params: { path: { job_id: id } } }));
  }

  /** Polls the job until it is completed, failed or cancelled, and returns it. */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    const interval = options.intervalMs ?? 500;
    const deadline =
      options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
    for (;;) {
      const job = await this.get(id);
      if (FINISHED.has(job.state)) return job;
      if (Date.now() + interval > deadline) {
        throw new Error(`job ${id} is still ${job.state} after ${options.timeoutMs} ms`);
      }
      await sleep(interval, options.signal);
    }
  }
}

/** The page's query parameters, as the URL carries them (strings). */
function pageQuery(page: PageOptions): { limit?: string; cursor?: string } {
  return {
    ...(page.limit === undefined ? {} : { limit: String(page.limit) }),
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
  };
}

async function* paginate<T>(
  read: (cursor: { cursor?: string }) => Promise<{ data: T[]; next_cursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let page = await read({});
  for (;;) {
    yield* page.data;
    if (page.next_cursor === null) return;
    page = await read({ cursor: page.next_cursor });
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
