import { Type } from 'typebox';
import { upsertRecord } from '../../operations/writes.ts';
import { directWrite } from '../durable.ts';
import { KEYED_WRITE_HEADERS, KEYED_WRITE_NOTE } from '../durable-doc.ts';
import { principalOf } from '../plugins/auth.ts';
import { UpsertBody } from '../schemas/bodies.ts';
import { ObjectNameParams, RecordResult } from '../schemas/common.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
  app.post(
    '/v1/object/upsert/:object_name',
    {
      schema: { params: ObjectNameParams, body: UpsertBody },
      config: {
        doc: {
          operation: 'upsert',
          operationId: 'upsertRecord',
          summary: 'Upsert one record',
          description:
            'Exactly one record and a `match_key`: no match creates, one match updates, several matches fail the record and write nothing. `Id` updates the record with that id or creates one; a field flagged External ID (Salesforce) or a unique property such as a contact’s `email` (HubSpot, batch upsert with `idProperty`) uses the CRM’s own upsert; any other field is looked up first (SOQL or CRM search, `LIMIT 2`, the value escaped). `X-CRM-Proxy-Upsert-Action` says what happened (`insert`, `update`, `external_id_upsert`, `ambiguous`). A record without a value for its match key is a 400. ' +
            KEYED_WRITE_NOTE,
          headers: KEYED_WRITE_HEADERS,
          tags: ['Records'],
          responses: {
            '200': {
              description: 'One per-record result.',
              schema: Type.Object({ data: Type.Array(RecordResult) }),
            },
          },
          errors: [400, 404, 409, 413, 415, 422, 502, 503],
        },
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
