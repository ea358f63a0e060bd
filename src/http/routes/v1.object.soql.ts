import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { runQuery } from '../../operations/query.ts';
import { principalOf } from '../plugins/auth.ts';
import { SoqlBody } from '../schemas/bodies.ts';
import { CrmRecord } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/soql',
    {
      schema: { body: SoqlBody },
      config: {
        doc: {
          operation: 'query',
          operationId: 'query',
          summary: 'Run a SOQL query',
          description:
            '`data` is a SOQL query; the service follows Salesforce’s pages up to 10 000 records per answer and returns `next_cursor` beyond that; send `{"cursor": …}` to continue.',
          tags: ['Query'],
          responses: {
            '200': {
              description: 'One page of results.',
              schema: Type.Object({
                data: Type.Object({
                  totalSize: Type.Integer(),
                  done: Type.Boolean(),
                  records: Type.Array(CrmRecord),
                  next_cursor: Type.Union([Type.String(), Type.Null()]),
                }),
              }),
            },
          },
          errors: [400, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request) => {
      const { data, cursor } = request.body;
      if ((data === undefined) === (cursor === undefined)) {
        throw new ApiError(
          'invalid_body',
          'Send either "data" (a SOQL query) or "cursor" (to continue a query), not both or neither.',
          {
            details: [{ path: '/data', message: 'exactly one of data and cursor is required' }],
          },
        );
      }
      const page = await runQuery(
        ctx.operations,
        principalOf(request).connection,
        data === undefined ? { cursor: cursor as string } : { soql: data },
      );
      return { data: page };
    },
  );
}
