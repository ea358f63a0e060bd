import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lockFaulted, type SalesforceContext } from '../context.ts';
import { normalizeId, type SaveResult } from '../org/index.ts';
import {
  isRecord,
  NOT_FOUND,
  sendErrors,
  sendJson,
  sendKernelError,
  UNABLE_TO_LOCK_ROW,
  versionOf,
} from './common.ts';
import { userOf } from './sobjects.ts';

/** sObject Collections limits: 200 records per write, 2 000 ids per retrieve. */
export const MAX_RECORDS = 200;
export const MAX_RETRIEVE_IDS = 2000;

const tooMany = (reply: FastifyReply) =>
  sendErrors(reply, 400, [
    {
      message: `record limit reached. cannot submit more than ${MAX_RECORDS} records into this call`,
      errorCode: 'EXCEEDED_ID_LIMIT',
    },
  ]);

interface CollectionBody {
  allOrNone: boolean;
  records: Record<string, unknown>[];
}

/** `{allOrNone?, records: [...]}`, or null with a 400 answered. */
function collectionBody(request: FastifyRequest, reply: FastifyReply): CollectionBody | null {
  const body = request.body;
  if (!isRecord(body) || !Array.isArray(body.records) || !body.records.every(isRecord)) {
    sendErrors(reply, 400, [
      { message: "Can not deserialize SObject[] out of 'records'", errorCode: 'JSON_PARSER_ERROR' },
    ]);
    return null;
  }
  if (body.records.length > MAX_RECORDS) {
    tooMany(reply);
    return null;
  }
  return { allOrNone: body.allOrNone === true || body.allOrNone === 'true', records: body.records };
}

/** Every record failed with a row lock: nothing was written. */
function locked(ids: Array<string | undefined>, upsert = false): SaveResult[] {
  return ids.map((id) => ({
    success: false,
    errors: [UNABLE_TO_LOCK_ROW(id)],
    ...(upsert ? { created: false } : {}),
  }));
}

/** Failed rows carry no `id` key (as the real API answers). */
const wire = (results: SaveResult[]) => results.map((r) => (r.success ? r : { ...r, id: undefined }));

function idsParam(raw: unknown): string[] {
  if (typeof raw !== 'string' || raw === '') return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function registerCollectionRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const base = '/services/data/:version/composite/sobjects';
  const opts = (request: FastifyRequest, allOrNone: boolean) => ({ allOrNone, userId: userOf(ctx, request) });

  app.post(base, { config: { kind: 'collections.create' } }, async (request, reply) => {
    if (versionOf(request, reply) === null) return reply;
    const body = collectionBody(request, reply);
    if (body === null) return reply;
    await ctx.realism.recordDelay(body.records.length);
    if (lockFaulted(request)) return sendJson(reply, 200, locked(body.records.map(() => undefined)));
    try {
      return sendJson(reply, 200, wire(ctx.org.insert(null, body.records, opts(request, body.allOrNone))));
    } catch (e) {
      return sendKernelError(reply, e);
    }
  });

  app.patch(base, { config: { kind: 'collections.update' } }, async (request, reply) => {
    if (versionOf(request, reply) === null) return reply;
    const body = collectionBody(request, reply);
    if (body === null) return reply;
    await ctx.realism.recordDelay(body.records.length);
    if (lockFaulted(request)) {
      return sendJson(reply, 200, locked(body.records.map((r) => String(r.id ?? r.Id ?? ''))));
    }
    try {
      return sendJson(reply, 200, wire(ctx.org.update(null, body.records, opts(request, body.allOrNone))));
    } catch (e) {
      return sendKernelError(reply, e);
    }
  });

  app.delete<{ Querystring: { ids?: string; allOrNone?: string } }>(
    base,
    { config: { kind: 'collections.delete' } },
    async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const ids = idsParam(request.query.ids);
      if (ids.length === 0) {
        return sendErrors(reply, 400, [
          { message: 'ids parameter must be specified', errorCode: 'MISSING_ARGUMENT' },
        ]);
      }
      if (ids.length > MAX_RECORDS) return tooMany(reply);
      await ctx.realism.recordDelay(ids.length);
      if (lockFaulted(request)) return sendJson(reply, 200, locked(ids));
      const allOrNone = request.query.allOrNone === 'true';
      return sendJson(reply, 200, wire(ctx.org.delete(ids, opts(request, allOrNone))));
    },
  );

  const retrieve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    rawIds: unknown,
    rawFields: unknown,
  ): Promise<FastifyReply> => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const meta = ctx.org.object((request.params as { sobject: string }).sobject);
    if (meta === undefined) return sendErrors(reply, 404, [NOT_FOUND]);
    const ids = Array.isArray(rawIds) ? rawIds.map(String) : idsParam(rawIds);
    const fields = Array.isArray(rawFields) ? rawFields.map(String) : idsParam(rawFields);
    if (ids.length === 0 || fields.length === 0) {
      return sendErrors(reply, 400, [
        {
          message: `${ids.length === 0 ? 'ids' : 'fields'} parameter must be specified`,
          errorCode: 'MISSING_ARGUMENT',
        },
      ]);
    }
    if (ids.length > MAX_RETRIEVE_IDS) {
      return sendErrors(reply, 400, [
        { message: `Too many ids: at most ${MAX_RETRIEVE_IDS} are accepted`, errorCode: 'EXCEEDED_ID_LIMIT' },
      ]);
    }
    await ctx.realism.recordDelay(ids.length);
    const norm = ids.map((id) => normalizeId(id));
    const wanted = [...new Set(norm.filter((id): id is string => id !== null))];
    try {
      // One SOQL run gives canonical field names, relationship paths and INVALID_FIELD errors as a query would.
      const inList = wanted.length === 0 ? "''" : wanted.map((id) => `'${id}'`).join(',');
      const run = ctx.org.query(`SELECT ${fields.join(', ')} FROM ${meta.name} WHERE Id IN (${inList})`, {
        version,
      });
      const byId = new Map<string, unknown>();
      for (const rec of run.records) {
        const url = rec.attributes.url ?? '';
        byId.set(url.slice(url.lastIndexOf('/') + 1), rec);
      }
      return sendJson(
        reply,
        200,
        norm.map((id) => (id === null ? null : (byId.get(id) ?? null))),
      );
    } catch (e) {
      return sendKernelError(reply, e);
    }
  };
  app.get<{ Params: { sobject: string }; Querystring: { ids?: string; fields?: string } }>(
    `${base}/:sobject`,
    { config: { kind: 'collections.retrieve' } },
    async (request, reply) => retrieve(request, reply, request.query.ids, request.query.fields),
  );
  app.post<{ Params: { sobject: string } }>(
    `${base}/:sobject`,
    { config: { kind: 'collections.retrieve' } },
    async (request, reply) => {
      const body = isRecord(request.body) ? request.body : {};
      return retrieve(request, reply, body.ids, body.fields);
    },
  );

  app.patch<{ Params: { sobject: string; field: string } }>(
    `${base}/:sobject/:field`,
    { config: { kind: 'collections.upsert' } },
    async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const body = collectionBody(request, reply);
      if (body === null) return reply;
      await ctx.realism.recordDelay(body.records.length);
      if (lockFaulted(request))
        return sendJson(
          reply,
          200,
          locked(
            body.records.map(() => undefined),
            true,
          ),
        );
      try {
        const results = ctx.org.upsert(
          request.params.sobject,
          request.params.field,
          body.records,
          opts(request, body.allOrNone),
        );
        return sendJson(reply, 200, wire(results));
      } catch (e) {
        return sendKernelError(reply, e);
      }
    },
  );
}
