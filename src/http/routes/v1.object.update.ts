import { Type } from 'typebox';
import { checkBatchWrite } from '../../operations/writes.ts';
import { batchWrite } from '../durable.ts';
import { ASYNC_WRITE_RESPONSE, DURABLE_WRITE_HEADERS, DURABLE_WRITE_NOTE } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { UpdateBody } from '../schemas/bodies.ts';
import { ObjectNameParams, RecordResult } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';
import { requestedInterface } from './write-interface.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/update/:object_name',
    {
      schema: { params: ObjectNameParams, body: UpdateBody },
      config: {
        doc: {
          operation: 'update',
          operationId: 'updateRecords',
          summary: 'Update records',
          description:
            'Changes 1 to 10 000 records, each identified by `id`; the fields sent overwrite the stored values. {{crm.notes}} ' +
            DURABLE_WRITE_NOTE,
          headers: DURABLE_WRITE_HEADERS,
          tags: ['Records'],
          responses: {
            '200': {
              description: 'Per-record results.',
              schema: Type.Object({ data: Type.Array(RecordResult) }),
            },
            '202': ASYNC_WRITE_RESPONSE,
          },
          errors: [400, 404, 409, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request, reply) => {
      const write = await checkBatchWrite(ctx.operations, principalOf(request).connection, {
        operation: 'update',
        objectName: request.params.object_name,
        items: request.body.data,
        requested: requestedInterface(request),
      });
      return batchWrite(ctx, request, reply, write);
    },
  );
}
