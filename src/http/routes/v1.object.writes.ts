import { checkBatchWrite, upsertRecord } from '../../operations/writes.ts';
import { batchWrite, directWrite } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { ASYNC_WRITE_ANSWER, answers, WriteResults } from '../schemas/answers.ts';
import { DeleteBody, InsertBody, UpdateBody, UpsertBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import {
  DURABLE_WRITE_NOTE,
  DurableWriteHeaders,
  KEYED_WRITE_NOTE,
  KeyedWriteHeaders,
} from '../schemas/write-headers.ts';
import type { ApiApp, RouteServices } from './types.ts';

// Batch writes differ only in body and text, and may run as jobs (durable.ts); upsert runs at once.

const ROUTES = [
  {
    operation: 'insert',
    url: '/v1/object/insert/:object_name',
    operationId: 'insertRecords',
    summary: 'Insert records',
    description:
      'Creates 1 to 10 000 records; one result per record, in order; each record succeeds or fails on its own.',
    body: InsertBody,
  },
  {
    operation: 'update',
    url: '/v1/object/update/:object_name',
    operationId: 'updateRecords',
    summary: 'Update records',
    description:
      'Changes 1 to 10 000 records, each identified by `id`; the fields sent overwrite the stored values.',
    body: UpdateBody,
  },
  {
    operation: 'delete',
    url: '/v1/object/delete',
    operationId: 'deleteRecords',
    summary: 'Delete records',
    description: 'Deletes up to 10 000 records by id (any object types).',
    body: DeleteBody,
  },
  {
    operation: 'delete',
    url: '/v1/object/delete/:object_name',
    operationId: 'deleteObjectRecords',
    summary: 'Delete records of one object type',
    description: 'Deletes up to 10 000 records of `{object_name}` by id.',
    body: DeleteBody,
  },
] as const;

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
            // An object type in the path may be unknown (404).
            [400, 409, 413, 415, 422, 502, 503, ...(named ? [404] : [])],
          ),
        },
      },
      async (request, reply) => {
        const { data } = request.body as { data: unknown[] | { ids: unknown[] } };
        const objectName = (request.params as { object_name?: string }).object_name;
        // A forced write interface; the operation checks it against the connection's CRM.
        const requested = request.headers['x-crm-proxy-interface'];
        const write = await checkBatchWrite(ctx.operations, principalOf(request).connection, {
          operation: route.operation,
          ...(objectName === undefined ? {} : { objectName }),
          // Delete takes `{"ids": […]}` or records with their ids.
          items: Array.isArray(data) ? data : data.ids,
          requested: Array.isArray(requested) ? requested[0] : requested,
        });
        return batchWrite(ctx, request, reply, write);
      },
    );
  }
  app.post(
    '/v1/object/upsert/:object_name',
    {
      schema: {
        operationId: 'upsertRecord',
        'x-crm-operation': 'upsert',
        summary: 'Upsert one record',
        description:
          'Exactly one record and a `match_key`: no match creates, one match updates, several matches fail the record and write nothing. `Id` updates the record with that id or creates one; a field flagged External ID (Salesforce) or a unique property such as a contact’s `email` (HubSpot, batch upsert with `idProperty`) uses the CRM’s own upsert; any other field is looked up first (SOQL or CRM search, `LIMIT 2`, the value escaped). `X-CRM-Proxy-Upsert-Action` says what happened (`insert`, `update`, `external_id_upsert`, `ambiguous`). A record without a value for its match key is a 400. ' +
          KEYED_WRITE_NOTE,
        tags: ['Records'],
        params: ObjectNameParams,
        headers: KeyedWriteHeaders,
        body: UpsertBody,
        response: answers(
          { 200: WriteResults('One per-record result.') },
          [400, 404, 409, 413, 415, 422, 502, 503],
        ),
      },
    },
    async (request, reply) =>
      directWrite(ctx, request, reply, async () => {
        const outcome = await upsertRecord(
          ctx.operations,
          principalOf(request).connection,
          request.params.object_name,
          request.body.data[0],
          request.body.match_key,
        );
        return { headers: { 'x-crm-proxy-upsert-action': outcome.action }, body: { data: [outcome.result] } };
      }),
  );
}
