import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { principalOf } from '../plugins/auth.ts';
import { RecordResult } from '../schemas/common.ts';
import {
  decode,
  encode,
  isOffset,
  JobParams,
  limitOf,
  ownJob,
  PageQuery,
  pageQueryDoc,
} from './jobs-shared.ts';
import type { ApiApp, RouteServices } from './types.ts';

/** `GET /v1/jobs/{job_id}/results`: a finished job's per-record results, page by page. */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs/:job_id/results',
    {
      schema: { params: JobParams, querystring: PageQuery },
      config: {
        doc: {
          operationId: 'getJobResults',
          summary: 'Read a job’s results',
          description:
            'Per-record results of a finished job, in input order, in the same shape as the synchronous answer, `limit` per page (default 1000, at most 10 000); `next_cursor` gives the next page. A record answered `CRM_PROXY_OUTCOME_UNKNOWN` may or may not have been written: look for it in the CRM before sending it again. `CRM_PROXY_CANCELLED`: the job was cancelled before the record was sent.',
          tags: ['Jobs'],
          query: pageQueryDoc('Results', '1 to 10 000 (default 1000)'),
          responses: {
            '200': {
              description: 'A page of per-record results.',
              schema: Type.Object({
                data: Type.Array(RecordResult),
                next_cursor: Type.Union([Type.String(), Type.Null()]),
              }),
            },
          },
          errors: [400, 404, 409],
        },
      },
    },
    async (request) => {
      const job = await ownJob(ctx.jobReads, principalOf(request).token.id, request.params.job_id);
      if (job.state === 'queued' || job.state === 'running') {
        throw new ApiError(
          'job_not_finished',
          `Job ${job.id} is ${job.state}; its results are readable once it has finished. Follow it at GET /v1/jobs/${job.id}.`,
          {
            headers: { 'retry-after': '1' },
          },
        );
      }
      if (job.state === 'failed') {
        throw new ApiError(
          'job_not_finished',
          `Job ${job.id} failed as a whole and has no per-record results; its error is on GET /v1/jobs/${job.id}.`,
        );
      }
      const limit = limitOf(request.query.limit, 1000, 10_000);
      const from = request.query.cursor === undefined ? 0 : decode(request.query.cursor, isOffset).o;
      const data = await ctx.jobReads.results(job.id, from, limit);
      const next = from + data.length;
      return { data, next_cursor: data.length > 0 && next < job.total ? encode({ o: next }) : null };
    },
  );
}
