import type { FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { Check } from 'typebox/value';
import { ApiError } from '../../errors/index.ts';
import { type JobReads, readResults } from '../../jobs/reads.ts';
import { jobView } from '../../jobs/view.ts';
import { wholeNumber } from '../../lib/whole-number.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, ref } from '../schemas/answers.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The token's write jobs: list, follow, cancel, read results; pages are opaque cursors of this service.

const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100 }) });

/** `limit` and `cursor` of a paged list of `what`: strings as a query has them, checked by the route. */
const pageQuery = (what: string, range: string) =>
  Type.Object({
    limit: Type.Optional(Type.String({ maxLength: 10, description: `${what} per page, ${range}.` })),
    cursor: Type.Optional(
      Type.String({ maxLength: 500, description: '`next_cursor` of the previous page.' }),
    ),
  });

/** A page of `item`s, and the cursor of the next one (null on the last page). */
const page = (item: TSchema, description: string) =>
  Type.Object(
    { data: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) },
    { description },
  );

/** `limit` of a page: a whole number from 1 to `max`, else a 400 naming the parameter. */
function limitOf(raw: string | undefined, fallback: number, max: number): number {
  const n = wholeNumber(raw, fallback, max);
  if (n === null) {
    throw new ApiError('invalid_body', `The limit query parameter must be a whole number from 1 to ${max}.`, {
      details: [{ path: 'query:limit', value: String(raw).slice(0, 10) }],
    });
  }
  return n;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The cursors handed out: where a list of jobs goes on (created at, id), or a results offset. */
const ListCursor = Type.Object({ c: Type.String(), i: Type.String() });
const Offset = Type.Object({ o: Type.Integer({ minimum: 0 }) });

function decode<T extends TSchema>(cursor: string, schema: T): Static<T> {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Check(schema, v)) return v;
  } catch {
    // Reported below.
  }
  throw new ApiError(
    'invalid_cursor',
    'The cursor is not one this service handed out. Pass `next_cursor` of the previous page as it is.',
    { details: [{ path: 'query:cursor' }] },
  );
}

/** The token's own job, else 404 (others' are not revealed); with `finished`, one with results, else 409. */
async function ownJob(
  jobs: JobReads,
  request: FastifyRequest & { params: { job_id: string } },
  finished = false,
) {
  const id = request.params.job_id;
  const job = await jobs.find(id);
  if (job === null || job.tokenId !== principalOf(request).token.id) {
    throw new ApiError(
      'job_not_found',
      `This API token has no job ${id.slice(0, 100)}. GET /v1/jobs lists its jobs (finished jobs are kept 7 days by default).`,
    );
  }
  if (finished && (job.state === 'queued' || job.state === 'running')) {
    throw new ApiError(
      'job_not_finished',
      `Job ${job.id} is ${job.state}; its results are readable once it has finished. Follow it at GET /v1/jobs/${job.id}.`,
      { headers: { 'retry-after': '1' } },
    );
  }
  if (finished && job.state === 'failed') {
    throw new ApiError(
      'job_not_finished',
      `Job ${job.id} failed as a whole and has no per-record results; its error is on GET /v1/jobs/${job.id}.`,
    );
  }
  return job;
}

export function register(app: ApiApp, ctx: RouteServices): void {
  listRoute(app, ctx);
  oneJobRoutes(app, ctx);
  resultsRoute(app, ctx);
}

/** The token's jobs, a page at a time. */
function listRoute(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs',
    {
      schema: {
        operationId: 'listJobs',
        summary: 'List jobs',
        description:
          "The API token's own write jobs, newest first, `limit` per page (default 50); `next_cursor` gives the next page.",
        tags: ['Jobs'],
        querystring: pageQuery('Jobs', '1 to 200 (default 50)'),
        response: answers({ 200: page(ref('Job'), 'A page of jobs.') }, [400]),
      },
    },
    async (request) => {
      const limit = limitOf(request.query.limit, 50, 200);
      const after = request.query.cursor === undefined ? undefined : decode(request.query.cursor, ListCursor);
      const rows = await ctx.jobReads.list({
        tokenId: principalOf(request).token.id,
        limit: limit + 1,
        ...(after === undefined ? {} : { after: { createdAt: after.c, id: after.i } }),
      });
      const jobs = rows.slice(0, limit);
      const last = jobs.at(-1);
      return {
        data: jobs.map(jobView),
        next_cursor:
          rows.length > limit && last !== undefined ? encode({ c: last.createdAt, i: last.id }) : null,
      };
    },
  );
}

/** One job: following it and cancelling it. */
function oneJobRoutes(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs/:job_id',
    {
      schema: {
        operationId: 'getJob',
        summary: 'Get a job',
        description:
          'State (`queued`, `running`, `completed`, `failed`, `cancelled`), the interface in use, counts that move while it runs (total, processed, succeeded, failed), timings and the CRM’s own job ids. A job interrupted by a restart of the service is resumed by the next instance to start (or another running one) and goes on from where it was.',
        tags: ['Jobs'],
        params: JobParams,
        response: answers({ 200: ref('Job', 'The job.') }, [404]),
      },
    },
    async (request) => jobView(await ownJob(ctx.jobReads, request)),
  );
  app.delete(
    '/v1/jobs/:job_id',
    {
      schema: {
        operationId: 'cancelJob',
        summary: 'Cancel a job',
        description:
          'Stops sending what has not been sent: those records end `CRM_PROXY_CANCELLED` (nothing written for them); calls already made keep their results, and a Bulk API job still open is aborted (one already running is asked to stop; what it processed keeps its results). Answers `202` with the job while it winds down, `200` with it when it had already finished.',
        tags: ['Jobs'],
        params: JobParams,
        response: answers(
          {
            200: ref('Job', 'The job had already finished; nothing changed.'),
            202: ref('Job', 'Cancel asked; the job ends `cancelled`.'),
          },
          [404],
        ),
      },
    },
    async (request, reply) => {
      const job = await ownJob(ctx.jobReads, request);
      if (job.state !== 'queued' && job.state !== 'running') return jobView(job);
      await ctx.jobs.cancel(job.id);
      reply.code(202);
      return jobView((await ctx.jobReads.find(job.id)) ?? job);
    },
  );
}

/** A finished job's per-record results, a page at a time. */
function resultsRoute(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs/:job_id/results',
    {
      schema: {
        operationId: 'getJobResults',
        summary: 'Read a job’s results',
        description:
          'Per-record results of a finished job, in input order, in the same shape as the synchronous answer, `limit` per page (default 1000, at most 10 000); `next_cursor` gives the next page. A record answered `CRM_PROXY_OUTCOME_UNKNOWN` may or may not have been written: look for it in the CRM before sending it again. `CRM_PROXY_CANCELLED`: the job was cancelled before the record was sent.',
        tags: ['Jobs'],
        params: JobParams,
        querystring: pageQuery('Results', '1 to 10 000 (default 1000)'),
        response: answers(
          { 200: page(ref('RecordResult'), 'A page of per-record results.') },
          [400, 404, 409],
        ),
      },
    },
    async (request) => {
      const job = await ownJob(ctx.jobReads, request, true);
      const limit = limitOf(request.query.limit, 1000, 10_000);
      const from = request.query.cursor === undefined ? 0 : decode(request.query.cursor, Offset).o;
      const data = await readResults(ctx.jobReads, job.id, from, limit);
      const next = from + data.length;
      return { data, next_cursor: data.length > 0 && next < job.total ? encode({ o: next }) : null };
    },
  );
}
