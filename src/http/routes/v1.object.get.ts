import { Type } from 'typebox';
import { getRecords } from '../../operations/records.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers } from '../schemas/answers.ts';
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
      schema: {
        operationId: 'getRecords',
        'x-crm-operation': 'get',
        summary: 'Get records by id',
        tags: ['Records'],
        params: ObjectNameParams,
        body: GetBody,
        response: answers({ 200: GetResponse }, [400, 404, 413, 415, 422, 429, 502, 503]),
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
