import { Type } from 'typebox';
import { checkBatchWrite } from '../../operations/writes.ts';
import { batchWrite } from '../durable.ts';
import { ASYNC_WRITE_RESPONSE, DURABLE_WRITE_HEADERS, DURABLE_WRITE_NOTE } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { DeleteBody } from '../schemas/bodies.ts';
import { ObjectNameParams, RecordResult } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';
import { requestedInterface } from './write-interface.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/delete',
    {
      schema: { body: DeleteBody },
      config: {
        doc: {
          operation: 'delete',
          operationId: 'deleteRecords',
          summary: 'Delete records',
          description:
            'Deletes up to 10 000 records by id (any object types). {{crm.notes}} ' + DURABLE_WRITE_NOTE,
          headers: DURABLE_WRITE_HEADERS,
          tags: ['Records'],
          responses: {
            '200': {
              description: 'Per-record results.',
              schema: Type.Object({ data: Type.Array(RecordResult) }),
            },
            '202': ASYNC_WRITE_RESPONSE,
          },
          errors: [400, 409, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request, reply) => {
      const write = await checkBatchWrite(ctx.operations, principalOf(request).connection, {
        operation: 'delete',
        items: Array.isArray(request.body.data) ? request.body.data : request.body.data.ids,
        requested: requestedInterface(request),
      });
      return batchWrite(ctx, request, reply, write);
    },
  );
  app.post(
    '/v1/object/delete/:object_name',
    {
      schema: { params: ObjectNameParams, body: DeleteBody },
      config: {
        doc: {
          operation: 'delete',
          operationId: 'deleteObjectRecords',
          summary: 'Delete records of one object type',
          description:
            'Deletes up to 10 000 records of `{object_name}` by id. {{crm.notes}} ' + DURABLE_WRITE_NOTE,
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
        operation: 'delete',
        objectName: request.params.object_name,
        items: Array.isArray(request.body.data) ? request.body.data : request.body.data.ids,
        requested: requestedInterface(request),
      });
      return batchWrite(ctx, request, reply, write);
    },
  );
}
