import { Type } from 'typebox';
import { getRecords } from '../../operations/get.ts';
import { principalOf } from '../plugins/auth.ts';
import { GetBody } from '../schemas/bodies.ts';
import { CrmRecord, ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

const GetResponse = Type.Object({
  data: Type.Array(Type.Union([CrmRecord, Type.Null()]), {
    description: 'One entry per id passed, in the order passed; `null` where no record exists.',
  }),
  errors: Type.Optional(
    Type.Array(
      Type.Union([
        Type.Object({
          index: Type.Integer(),
          id: Type.String(),
          code: Type.String(),
          message: Type.String(),
        }),
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'An error entry of HubSpot, as it sent it.',
        }),
      ]),
      {
        description:
          'Ids that cannot be ids of this CRM (their entry in `data` is `null`); on HubSpot also HubSpot’s own error entries (`category`, `message`, `context.ids`).',
      },
    ),
  ),
});

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/get/:object_name',
    {
      schema: { params: ObjectNameParams, body: GetBody },
      config: {
        doc: {
          operation: 'get',
          operationId: 'getRecords',
          summary: 'Get records by id',
          description:
            'Salesforce: up to 10 000 ids; each record has `attributes`, `Id` and the requested fields (all fields when `fields` is absent or empty). Unknown fields: 400 `unknown_field` naming the closest real field. Ids that do not exist, or that are not Salesforce ids, answer `null` at their place; duplicates are answered at each place. HubSpot: up to 100 ids read in one call; records as HubSpot shapes them (`id`, `properties`, `createdAt`, `updatedAt`, `archived`); all properties when `fields` is absent or empty, else those plus the system properties; `null` for missing ids with HubSpot’s own error entries in `errors`. Object names: plural names (`contacts`, `line_items`, `goals`, …), type ids, and custom objects by `2-…`, `p_…` or plain name. `propertiesWithHistory` (HubSpot, at most 50 ids) adds each record’s history of those properties; the account’s audit log is `POST /v1/audit_logs` (`audit_logs` as an object name: 422 pointing to both). `owners`, `deal_pipelines`, `ticket_pipelines`, `deal_stages`, `ticket_stages`: by id, in HubSpot’s shapes (archived owners too). Associations: 422 `object_not_supported`.',
          tags: ['Records'],
          responses: { '200': { description: 'The records, in input order.', schema: GetResponse } },
          errors: [400, 404, 413, 415, 422, 429, 502, 503],
        },
      },
    },
    async (request, reply) => {
      const result = await getRecords(
        ctx.operations,
        principalOf(request).connection,
        request.params.object_name,
        request.body.data,
      );
      if ('json' in result) return reply.type('application/json; charset=utf-8').send(result.json);
      return result;
    },
  );
}
