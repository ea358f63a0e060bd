import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { runSearch } from '../../operations/search.ts';
import type { SearchRequest } from '../../providers/adapter.ts';
import { principalOf } from '../plugins/auth.ts';
import { SearchBody } from '../schemas/bodies.ts';
import { CrmRecord, ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/query/:object_name',
    {
      schema: { params: ObjectNameParams, body: SearchBody },
      config: {
        doc: {
          operation: 'search',
          operationId: 'searchRecords',
          summary: 'Search records of one object type',
          description:
            'HubSpot CRM search: `filterGroups` (OR of groups, AND within one; up to 5 groups of 6 filters, 18 in all), one sort, `properties`, a text `query`. The service follows HubSpot’s pages of 200 under search’s own limit of 5 calls per second, up to `limit` records per answer (default 2 000), and returns `next_cursor` while more remain; send `{"cursor": …}` to continue. HubSpot lets one search reach 10 000 results: `totalSize` may say more, narrow the filters to reach the rest. Unknown property names: 400 `unknown_field` with the closest real one; a search HubSpot refuses: 400 `invalid_query` with its message. Records keep HubSpot’s shape (`id`, `properties`, `createdAt`, `updatedAt`, `archived`).',
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
          errors: [400, 404, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request) => {
      const { data, cursor } = request.body;
      if ((data === undefined) === (cursor === undefined)) {
        throw new ApiError(
          'invalid_body',
          'Send either "data" (a search) or "cursor" (to continue one), not both or neither.',
          { details: [{ path: '/data', message: 'exactly one of data and cursor is required' }] },
        );
      }
      const page = await runSearch(
        ctx.operations,
        principalOf(request).connection,
        data === undefined
          ? { cursor: cursor as string }
          : { objectName: request.params.object_name, request: data as SearchRequest },
      );
      return { data: page };
    },
  );
}
