import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { checkBatchWrite } from '../../operations/writes.ts';
import { batchWrite } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { ASYNC_WRITE_ANSWER, answers, WriteResults } from '../schemas/answers.ts';
import { DeleteBody, InsertBody, UpdateBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import { DURABLE_WRITE_NOTE, DurableWriteHeaders } from '../schemas/write-headers.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The batch writes: insert, update and delete (by object or by ids alone). Each checks its records
// and runs as a durable job or at once (http/durable.ts); they differ only in their body and text.

interface BatchRoute {
  operation: 'insert' | 'update' | 'delete';
  url: string;
  operationId: string;
  summary: string;
  description: string;
  body: TSchema;
  errors: number[];
}

const ROUTES: BatchRoute[] = [
  {
    operation: 'insert',
    url: '/v1/object/insert/:object_name',
    operationId: 'insertRecords',
    summary: 'Insert records',
    description:
      'Creates 1 to 10 000 records; one result per record, in order; each record succeeds or fails on its own.',
    body: InsertBody,
    errors: [400, 404, 409, 413, 415, 422, 502, 503],
  },
  {
    operation: 'update',
    url: '/v1/object/update/:object_name',
    operationId: 'updateRecords',
    summary: 'Update records',
    description:
      'Changes 1 to 10 000 records, each identified by `id`; the fields sent overwrite the stored values.',
    body: UpdateBody,
    errors: [400, 404, 409, 413, 415, 422, 502, 503],
  },
  {
    operation: 'delete',
    url: '/v1/object/delete',
    operationId: 'deleteRecords',
    summary: 'Delete records',
    description: 'Deletes up to 10 000 records by id (any object types).',
    body: DeleteBody,
    errors: [400, 409, 413, 415, 422, 502, 503],
  },
  {
    operation: 'delete',
    url: '/v1/object/delete/:object_name',
    operationId: 'deleteObjectRecords',
    summary: 'Delete records of one object type',
    description: 'Deletes up to 10 000 records of `{object_name}` by id.',
    body: DeleteBody,
    errors: [400, 404, 409, 413, 415, 422, 502, 503],
  },
];

/** The records (or ids) a body carries: delete takes `{"ids": […]}` or records with their ids. */
function itemsOf(data: unknown): unknown[] {
  return Array.isArray(data) ? data : (data as { ids: unknown[] }).ids;
}

/**
 * The write interface a request forces with `X-CRM-Proxy-Interface`, as sent; undefined lets the
 * service choose. Which values are valid is the connection's CRM's to say (checked by the operation).
 */
function requestedInterface(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-crm-proxy-interface'];
  return Array.isArray(raw) ? raw[0] : raw;
}

export function register(app: ApiApp, ctx: RouteServices): void {
  for (const route of ROUTES) {
    const named = route.url.includes(':object_name');
    app.post(
      route.url,
      {
        schema: {
          operationId: route.operationId,
          'x-crm-operation': route.operation,
          summary: route.summary,
          description: `${route.description} ${DURABLE_WRITE_NOTE}`,
          tags: ['Records'],
          ...(named ? { params: ObjectNameParams } : {}),
          headers: DurableWriteHeaders,
          body: route.body,
          response: answers(
            { 200: WriteResults('Per-record results.'), 202: ASYNC_WRITE_ANSWER },
            route.errors,
          ),
        },
      },
      async (request, reply) => {
        const body = request.body as { data: unknown };
        const objectName = (request.params as { object_name?: string }).object_name;
        const write = await checkBatchWrite(ctx.operations, principalOf(request).connection, {
          operation: route.operation,
          ...(objectName === undefined ? {} : { objectName }),
          items: itemsOf(body.data),
          requested: requestedInterface(request),
        });
        return batchWrite(ctx, request, reply, write);
      },
    );
  }
}
