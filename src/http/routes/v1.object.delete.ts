import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { deleteRecords } from '../../operations/writes.ts';
import { principalOf } from '../plugins/auth.ts';
import { DeleteBody } from '../schemas/bodies.ts';
import { RecordResult } from '../schemas/common.ts';
import type { ApiApp } from './types.ts';
import { requestedInterface } from './write-interface.ts';

export function register(app: ApiApp, ctx: AppContext): void {
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
            'Deletes up to 10 000 records by id (any object types). The service picks sObject Collections or Bulk API 2.0 by size and names it in the `X-CRM-Proxy-Interface` response header; the same request header (`collections` | `bulk2`) forces one.',
          tags: ['Records'],
          responses: {
            '200': {
              description: 'Per-record results.',
              schema: Type.Object({ data: Type.Array(RecordResult) }),
            },
          },
          errors: [400, 413, 415, 422, 502, 503],
        },
      },
    },
    async (request, reply) => {
      const answer = await deleteRecords(
        ctx.operations,
        principalOf(request).connection,
        request.body.data.ids,
        requestedInterface(request),
      );
      if (answer.via !== undefined) reply.header('x-crm-proxy-interface', answer.via);
      return { data: answer.data };
    },
  );
}
