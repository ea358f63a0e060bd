import { Type } from 'typebox';
import { jobView } from '../../jobs/view.ts';
import { JobSchema } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { decode, encode, isListCursor, limitOf, PageQuery, pageQueryDoc } from './jobs-shared.ts';
import type { ApiApp, RouteServices } from './types.ts';

/** `GET /v1/jobs`: the token's own jobs, newest first, page by page. */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/v1/jobs',
    {
      schema: { querystring: PageQuery },
      config: {
        doc: {
          operationId: 'listJobs',
          summary: 'List jobs',
          description:
            "The API token's own write jobs, newest first, `limit` per page (default 50); `next_cursor` gives the next page.",
          tags: ['Jobs'],
          query: pageQueryDoc('Jobs', '1 to 200 (default 50)'),
          responses: {
            '200': {
              description: 'A page of jobs.',
              schema: Type.Object({
                data: Type.Array(JobSchema),
                next_cursor: Type.Union([Type.String(), Type.Null()]),
              }),
            },
          },
          errors: [400],
        },
      },
    },
    async (request) => {
      const limit = limitOf(request.query.limit, 50, 200);
      const after =
        request.query.cursor === undefined ? undefined : decode(request.query.cursor, isListCursor);
      const rows = await ctx.jobReads.list({
        tokenId: principalOf(request).token.id,
        limit: limit + 1,
        ...(after === undefined ? {} : { after: { createdAt: after.c, id: after.i } }),
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map(jobView),
        next_cursor:
          rows.length > limit && last !== undefined ? encode({ c: last.createdAt, i: last.id }) : null,
      };
    },
  );
}
