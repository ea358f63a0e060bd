import { upsertRecord } from '../../operations/writes.ts';
import { directWrite } from '../durable.ts';
import { principalOf } from '../plugins/auth.ts';
import { answers, WriteResults } from '../schemas/answers.ts';
import { UpsertBody } from '../schemas/bodies.ts';
import { ObjectNameParams } from '../schemas/common.ts';
import { KEYED_WRITE_NOTE, KeyedWriteHeaders } from '../schemas/write-headers.ts';
import type { ApiApp, RouteServices } from './types.ts';

export function register(app: ApiApp, ctx: RouteServices): void {
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
