import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { normalizeId, type ObjectMeta } from '../org/index.ts';
import {
  isRecord,
  NOT_FOUND,
  sendErrors,
  sendJson,
  sendKernelError,
  toApiErrors,
  versionOf,
} from './common.ts';
import { recordPreconditions, setRecordEtag } from './conditional.ts';
import { recordJson, recordUrl } from './serialize.ts';
import { objectOf, userOf } from './sobjects.ts';

type IdParams = { version: string; sobject: string; id: string };
type ExtParams = { version: string; sobject: string; field: string; value: string };

const extFieldMissing = (field: string) => ({
  errorCode: 'NOT_FOUND',
  message: `Provided external ID field does not exist or is not accessible: ${field}`,
});

/** Upsert answers an update with 200 and a body from v46.0; before that with 204 and no body. */
const UPSERT_200_SINCE = 46;

interface Target {
  version: string;
  meta: ObjectMeta;
}

function target(ctx: SalesforceContext, request: FastifyRequest, reply: FastifyReply): Target | null {
  const version = versionOf(request, reply);
  if (version === null) return null;
  const meta = objectOf(ctx, request, reply);
  return meta === null ? null : { version, meta };
}

/** The record behind `/sobjects/X/{id}`: 404 answered when the segment is no id of a live record of X. */
function recordOf(
  ctx: SalesforceContext,
  t: Target,
  rawId: string,
  reply: FastifyReply,
  deletedCode = 'NOT_FOUND',
) {
  const id = normalizeId(rawId);
  // A segment that is not an id is read as an external-id field name with no value.
  if (id === null) return void sendErrors(reply, 404, [extFieldMissing(rawId)]);
  const found = ctx.org.get(id);
  if (found === undefined || found.object !== t.meta.name) return void sendErrors(reply, 404, [NOT_FOUND]);
  if (found.record.IsDeleted === true) {
    return void sendErrors(reply, 404, [
      deletedCode === 'NOT_FOUND'
        ? NOT_FOUND
        : { errorCode: 'ENTITY_IS_DELETED', message: 'entity is deleted' },
    ]);
  }
  return found.record;
}

/** `?fields=A,B`: the record through SOQL so relationship paths and INVALID_FIELD behave as in a query. */
function withFields(ctx: SalesforceContext, t: Target, id: string, fields: string, reply: FastifyReply) {
  try {
    const run = ctx.org.query(`SELECT ${fields} FROM ${t.meta.name} WHERE Id = '${id}'`, {
      version: t.version,
    });
    const rec = run.records[0];
    return rec === undefined ? sendErrors(reply, 404, [NOT_FOUND]) : sendJson(reply, 200, rec);
  } catch (e) {
    return sendKernelError(reply, e);
  }
}

export function registerRecordRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const byId = '/services/data/:version/sobjects/:sobject/:id';
  app.get<{ Params: IdParams; Querystring: { fields?: string } }>(
    byId,
    { config: { kind: 'rest.sobject.get' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      const rec = recordOf(ctx, t, request.params.id, reply);
      if (rec === undefined || recordPreconditions(request, reply, t.meta.name, rec)) return reply;
      const fields = request.query.fields;
      if (typeof fields === 'string' && fields.trim() !== '')
        return withFields(ctx, t, String(rec.Id), fields, reply);
      return sendJson(reply, 200, recordJson(t.meta, rec, t.version));
    },
  );
  app.patch<{ Params: IdParams; Body: unknown }>(
    byId,
    { config: { kind: 'rest.sobject.update' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      const rec = recordOf(ctx, t, request.params.id, reply, 'ENTITY_IS_DELETED');
      if (rec === undefined || recordPreconditions(request, reply, t.meta.name, rec)) return reply;
      if (!isRecord(request.body))
        return sendErrors(reply, 400, [
          { errorCode: 'JSON_PARSER_ERROR', message: 'The request body must be a JSON object' },
        ]);
      const [res] = ctx.org.update(t.meta.name, [{ ...request.body, Id: rec.Id }], {
        userId: userOf(ctx, request),
      });
      if (res === undefined || !res.success) return sendErrors(reply, 400, toApiErrors(res?.errors ?? []));
      setRecordEtag(reply, t.meta.name, ctx.org.get(String(rec.Id))?.record);
      return reply.code(204).send();
    },
  );
  app.delete<{ Params: IdParams }>(
    byId,
    { config: { kind: 'rest.sobject.delete' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      const rec = recordOf(ctx, t, request.params.id, reply, 'ENTITY_IS_DELETED');
      if (rec === undefined) return reply;
      const [res] = ctx.org.delete([rec.Id], { userId: userOf(ctx, request) });
      if (res === undefined || !res.success) return sendErrors(reply, 400, toApiErrors(res?.errors ?? []));
      return reply.code(204).send();
    },
  );

  const byExt = '/services/data/:version/sobjects/:sobject/:field/:value';
  /** Live records matching the external id, or null with the answer (404 / 300) sent. */
  const matchesOf = (t: Target, p: ExtParams, reply: FastifyReply): string[] | null => {
    let ids: string[];
    try {
      ids = ctx.org.findByExternalId(t.meta.name, p.field, p.value);
    } catch (e) {
      sendKernelError(reply, e);
      return null;
    }
    if (ids.length > 1) {
      sendJson(
        reply,
        300,
        ids.map((id) => recordUrl(t.version, t.meta.name, id)),
      );
      return null;
    }
    return ids;
  };
  app.get<{ Params: ExtParams; Querystring: { fields?: string } }>(
    byExt,
    { config: { kind: 'rest.sobject.get' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      // `/sobjects/Attachment/{id}/Body`: a blob field's bytes.
      const blob = t.meta.field(request.params.value);
      const owner = normalizeId(request.params.field);
      if (blob?.type === 'base64' && owner !== null && owner.startsWith(t.meta.keyPrefix)) {
        const found = ctx.org.get(owner);
        const data = found?.record[blob.name];
        if (found === undefined || found.record.IsDeleted === true || typeof data !== 'string') {
          return sendErrors(reply, 404, [NOT_FOUND]);
        }
        const type =
          typeof found.record.ContentType === 'string' ? found.record.ContentType : 'application/octetstream';
        return reply.code(200).header('content-type', type).send(Buffer.from(data, 'base64'));
      }
      const ids = matchesOf(t, request.params, reply);
      if (ids === null) return reply;
      const id = ids[0];
      const found = id === undefined ? undefined : ctx.org.get(id);
      if (id === undefined || found === undefined) return sendErrors(reply, 404, [NOT_FOUND]);
      const fields = request.query.fields;
      if (typeof fields === 'string' && fields.trim() !== '') return withFields(ctx, t, id, fields, reply);
      return sendJson(reply, 200, recordJson(t.meta, found.record, t.version));
    },
  );
  app.patch<{ Params: ExtParams; Body: unknown; Querystring: { updateOnly?: string } }>(
    byExt,
    { config: { kind: 'rest.sobject.upsert' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      const p = request.params;
      const body = request.body ?? {};
      if (!isRecord(body))
        return sendErrors(reply, 400, [
          { errorCode: 'JSON_PARSER_ERROR', message: 'The request body must be a JSON object' },
        ]);
      const ids = matchesOf(t, p, reply);
      if (ids === null) return reply;
      const field = t.meta.field(p.field);
      if (field === undefined) return sendErrors(reply, 404, [extFieldMissing(p.field)]);
      // The URL carries the external id; a copy of it in the body is ignored.
      const input: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(body))
        if (k.toLowerCase() !== field.name.toLowerCase()) input[k] = v;
      const userId = userOf(ctx, request);
      // `?updateOnly=true` (v61.0+) and the Id "external id" never create.
      const updateOnly = request.query.updateOnly === 'true' && Number(t.version) >= 61;
      if ((field.type === 'id' || updateOnly) && ids.length === 0) return sendErrors(reply, 404, [NOT_FOUND]);
      const res =
        ids.length === 0
          ? ctx.org.insert(t.meta.name, [{ ...input, [field.name]: p.value }], { userId })[0]
          : ctx.org.update(t.meta.name, [{ ...input, Id: ids[0] }], { userId })[0];
      if (res === undefined || !res.success || res.id === undefined)
        return sendErrors(reply, 400, toApiErrors(res?.errors ?? []));
      if (ids.length === 0) {
        reply.header('location', recordUrl(t.version, t.meta.name, res.id));
        return sendJson(reply, 201, { id: res.id, success: true, errors: [], created: true });
      }
      if (Number(t.version) < UPSERT_200_SINCE) return reply.code(204).send();
      return sendJson(reply, 200, { id: res.id, success: true, errors: [], created: false });
    },
  );
  app.delete<{ Params: ExtParams }>(
    byExt,
    { config: { kind: 'rest.sobject.delete' } },
    async (request, reply) => {
      const t = target(ctx, request, reply);
      if (t === null) return reply;
      const ids = matchesOf(t, request.params, reply);
      if (ids === null) return reply;
      if (ids.length === 0) return sendErrors(reply, 404, [NOT_FOUND]);
      const [res] = ctx.org.delete(ids, { userId: userOf(ctx, request) });
      if (res === undefined || !res.success) return sendErrors(reply, 400, toApiErrors(res?.errors ?? []));
      return reply.code(204).send();
    },
  );
}
