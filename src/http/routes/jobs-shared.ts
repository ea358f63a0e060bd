import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import type { JobReads } from '../../jobs/reads.ts';

// What the job routes share: the parameters, `limit` and the opaque page cursors, the owner check.

export const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100 }) });
/** The documented `limit` and `cursor` query parameters of a paged list of `what`. */
export const pageQueryDoc = (what: string, range: string) => [
  { name: 'limit', description: `${what} per page, ${range}.`, schema: { type: 'integer' } },
  { name: 'cursor', description: '`next_cursor` of the previous page.', schema: { type: 'string' } },
];

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.String({ maxLength: 10 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
});

/** `limit` of a page: a whole number from 1 to `max`, else a 400 naming the parameter. */
export function limitOf(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || n < 1 || n > max) {
    throw new ApiError('invalid_body', `The limit query parameter must be a whole number from 1 to ${max}.`, {
      details: [{ path: 'query:limit', value: raw.slice(0, 10) }],
    });
  }
  return n;
}

export const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function decode<T>(cursor: string, valid: (v: unknown) => v is T): T {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (valid(v)) return v;
  } catch {
    // Reported below.
  }
  throw new ApiError(
    'invalid_cursor',
    'The cursor is not one this service handed out. Pass `next_cursor` of the previous page as it is.',
    {
      details: [{ path: 'query:cursor' }],
    },
  );
}

export const isListCursor = (v: unknown): v is { c: string; i: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { c?: unknown }).c === 'string' &&
  typeof (v as { i?: unknown }).i === 'string';
export const isOffset = (v: unknown): v is { o: number } =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as { o?: unknown }).o) &&
  (v as { o: number }).o >= 0;

/** The token's own job, or 404 (another token's job is not revealed). */
export async function ownJob(jobs: Pick<JobReads, 'find'>, tokenId: string, id: string) {
  const job = await jobs.find(id);
  if (job === null || job.tokenId !== tokenId) {
    throw new ApiError(
      'job_not_found',
      `This API token has no job ${id.slice(0, 100)}. GET /v1/jobs lists its jobs (finished jobs are kept 7 days by default).`,
    );
  }
  return job;
}
