import { Type } from 'typebox';
import { describeObject } from '../../operations/describe.ts';
import { principalOf } from '../plugins/auth.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';
import { ensureNoBody } from './v1.describe.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/describe/:object_name',
    {
      schema: { params: ObjectNameParams },
      config: {
        doc: {
          operation: 'describe',
          operationId: 'describeObject',
          summary: 'Describe one object',
          description:
            "The object's metadata in `data`. {{crm.notes}} The object name is case-insensitive. Unknown object: 404 `unknown_object`. No request body.",
          tags: ['Describe'],
          responses: {
            '200': {
              description: 'The object describe.',
              schema: Type.Object({ data: Type.Record(Type.String(), Type.Unknown()) }),
            },
          },
          errors: [400, 404, 422, 502, 503],
        },
      },
    },
    async (request) => {
      ensureNoBody(request.body);
      return {
        data: await describeObject(
          ctx.operations,
          principalOf(request).connection,
          request.params.object_name,
        ),
      };
    },
  );
}
