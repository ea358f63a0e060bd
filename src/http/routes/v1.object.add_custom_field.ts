import { Type } from 'typebox';
import { addCustomField } from '../../operations/add-custom-field.ts';
import { directWrite } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers } from '../schemas/answers.ts';
import { CustomFieldBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import { KEYED_WRITE_NOTE, KeyedWriteHeaders } from '../schemas/write-headers.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/add_custom_field/:object_name',
    {
      schema: {
        operationId: 'addCustomField',
        'x-crm-operation': 'add_custom_field',
        summary: 'Add a custom field',
        description: KEYED_WRITE_NOTE,
        tags: ['Metadata'],
        params: ObjectNameParams,
        headers: KeyedWriteHeaders,
        body: CustomFieldBody,
        response: answers(
          {
            200: Type.Object(
              {
                data: Type.Record(Type.String(), Type.Unknown()),
                msg: Type.Optional(Type.String()),
                message: Type.Optional(Type.String()),
              },
              { additionalProperties: true, description: 'The creation result.' },
            ),
          },
          [400, 404, 409, 413, 415, 422, 502, 503],
        ),
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
