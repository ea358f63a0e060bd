import { Type } from 'typebox';
import { ApiError } from '../../errors/index.ts';
import { runOperation } from '../../operations/deps.ts';
import type { SearchRequest } from '../../providers/adapter.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, dataAnswer } from '../schemas/answers.ts';
import { SearchBody, SoqlBody } from '../schemas/bodies.ts';
import { CrmRecord, ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The paged reads (SOQL, CRM search): a new read in `data`, or its continuation in `cursor`.

const QueryPage = dataAnswer(
  Type.Object({
    totalSize: Type.Integer(),
    done: Type.Boolean(),
    records: Type.Array(CrmRecord),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  'One page of results.',
);

/** Exactly one of `data` (a new read) and `cursor` (its continuation). */
function dataOrCursor(body: { data?: unknown; cursor?: string }, data: string, cursor: string): void {
  if ((body.data === undefined) !== (body.cursor === undefined)) return;
  throw new ApiError(
    'invalid_body',
    `Send either "data" (${data}) or "cursor" (${cursor}), not both or neither.`,
    { details: [{ path: '/data', message: 'exactly one of data and cursor is required' }] },
  );
}

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/soql',
    {
      schema: {
        operationId: 'query',
        'x-crm-operation': 'query',
        summary: 'Run a SOQL query',
        description:
          '`data` is a SOQL query; the service follows Salesforce’s pages up to 10 000 records per answer and returns `next_cursor` beyond that; send `{"cursor": …}` to continue.',
        tags: ['Query'],
        body: SoqlBody,
        response: answers({ 200: QueryPage }, [400, 413, 415, 422, 502, 503]),
      },
    },
    async (request) => {
      const { data, cursor } = request.body;
      dataOrCursor(request.body, 'a SOQL query', 'to continue a query');
      const connection = principalOf(request).connection;
      const read = data === undefined ? { cursor: cursor as string } : { soql: data };
      return { data: await runOperation(ctx.operations, connection, 'query', read) };
    },
  );
  app.post(
    '/v1/object/query/:object_name',
    {
      schema: {
        operationId: 'searchRecords',
        'x-crm-operation': 'search',
        summary: 'Search records of one object type',
        description:
          'HubSpot CRM search: `filterGroups` (OR of groups, AND within one; up to 5 groups of 6 filters, 18 in all), one sort, `properties`, a text `query`. The service follows HubSpot’s pages of 200 under search’s own limit of 5 calls per second, up to `limit` records per answer (default 2 000), and returns `next_cursor` while more remain; send `{"cursor": …}` to continue. HubSpot lets one search reach 10 000 results: `totalSize` may say more, narrow the filters to reach the rest. Unknown property names: 400 `unknown_field` with the closest real one; a search HubSpot refuses: 400 `invalid_query` with its message. Records keep HubSpot’s shape (`id`, `properties`, `createdAt`, `updatedAt`, `archived`).',
        tags: ['Query'],
        params: ObjectNameParams,
        body: SearchBody,
        response: answers({ 200: QueryPage }, [400, 404, 413, 415, 422, 502, 503]),
      },
    },
    async (request) => {
      const { data, cursor } = request.body;
      dataOrCursor(request.body, 'a search', 'to continue one');
      const read =
        data === undefined
          ? { cursor: cursor as string }
          : { objectName: request.params.object_name, request: data as SearchRequest };
      return { data: await runOperation(ctx.operations, principalOf(request).connection, 'search', read) };
    },
  );
}
