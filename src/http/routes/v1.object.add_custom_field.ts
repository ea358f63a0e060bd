import { Type } from 'typebox';
import { addCustomField } from '../../operations/add-custom-field.ts';
import { directWrite } from '../durable.ts';
import { KEYED_WRITE_HEADERS, KEYED_WRITE_NOTE } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { CustomFieldBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/add_custom_field/:object_name',
    {
      schema: { params: ObjectNameParams, body: CustomFieldBody },
      config: {
        doc: {
          operation: 'add_custom_field',
          operationId: 'addCustomField',
          summary: 'Add a custom field',
          description: '{{crm.notes}} ' + KEYED_WRITE_NOTE,
          headers: KEYED_WRITE_HEADERS,
          tags: ['Metadata'],
          responses: {
            '200': {
              description: 'The creation result.',
              schema: Type.Object({
                data: Type.Record(Type.String(), Type.Unknown()),
                msg: Type.Optional(Type.String()),
                message: Type.Optional(Type.String()),
              }),
            },
          },
          errors: [400, 404, 409, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request, reply) =>
      directWrite(ctx, request, reply, async () => ({
        headers: {},
        body: await addCustomField(
          ctx.operations,
          principalOf(request).connection,
          request.params.object_name,
          request.body.data,
        ),
      })),
  );
}
