import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, notFoundBody, sendHubSpotError, validationBody } from '../errors.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import {
  archivedParam,
  failureBody,
  invalidInputBody,
  isRecord,
  readOnlyTypeBody,
  typeOrReply,
} from './http.ts';
import { applyAssociations, associationsView, planAssociations } from './inline-associations.ts';
import { allNames, knownNames, listParam, type PublicObject, readNames, toPublicObject } from './view.ts';
import { createRecord, findRecord, isUniqueProperty, updateRecord } from './writes.ts';

interface TypeParams {
  objectType: string;
}
interface RecordParams extends TypeParams {
  objectId: string;
}
type ReadQuery = Record<string, unknown>;

const MAX_PAGE = 100;

/** A read's answer with the `associations` its `?associations=` asked for (left out when there are none). */
function withAssociations(ctx: HubSpotContext, type: ObjectTypeDefinition, view: PublicObject, q: ReadQuery) {
  const associations = associationsView(ctx, type, view.id, q['associations']);
  return associations === undefined ? view : { ...view, associations };
}

/** Single-record endpoints: list, get, create, update, archive. */
export function registerBasicRoutes(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.get<{ Params: TypeParams; Querystring: ReadQuery }>(
    `${prefix}/:objectType`,
    { config: { kind: 'objects.list' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const q = req.query;
      const limit = Math.min(Math.max(Number(q['limit'] ?? 10) || 10, 1), MAX_PAGE);
      const after = Number(q['after'] ?? 0) || 0;
      const names = readNames(ctx.portal, type, listParam(q['properties']));
      const historyNames = knownNames(ctx.portal, type, listParam(q['propertiesWithHistory']));
      const all = ctx.portal.records
        .list(type.objectTypeId, { archived: archivedParam(q['archived']) })
        .filter((r) => Number(r.id) >= after);
      const page = all.slice(0, limit);
      const next = all[limit];
      const body: Record<string, unknown> = {
        results: page.map((r) => withAssociations(ctx, type, toPublicObject(r, names, { historyNames }), q)),
      };
      if (next !== undefined) {
        const url = new URL(req.url, ctx.baseUrl());
        url.searchParams.set('after', next.id);
        body['paging'] = { next: { after: next.id, link: url.toString() } };
      }
      return body;
    },
  );

  app.get<{ Params: RecordParams; Querystring: ReadQuery }>(
    `${prefix}/:objectType/:objectId`,
    { config: { kind: 'objects.get' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const q = req.query;
      const idProperty =
        typeof q['idProperty'] === 'string' && q['idProperty'] !== '' ? q['idProperty'] : undefined;
      const id = req.params.objectId;
      if (idProperty !== undefined && !isUniqueProperty(ctx.portal, type, idProperty)) {
        return sendHubSpotError(
          reply,
          400,
          validationBody(`${idProperty} is not a unique property of ${type.singularName}`),
        );
      }
      if (idProperty === undefined && !/^\d+$/.test(id)) {
        // Community-captured text (two spaces included).
        return sendHubSpotError(
          reply,
          404,
          hubspotError({
            message: 'Object not found.  objectId are usually numeric.',
            category: 'OBJECT_NOT_FOUND',
            context: { id: [id] },
          }),
        );
      }
      const record = findRecord(ctx.portal, type, id, idProperty, archivedParam(q['archived']));
      if (record === undefined) return sendHubSpotError(reply, 404, notFoundBody());
      const names = readNames(ctx.portal, type, listParam(q['properties']));
      const historyNames = knownNames(ctx.portal, type, listParam(q['propertiesWithHistory']));
      return withAssociations(ctx, type, toPublicObject(record, names, { historyNames }), q);
    },
  );

  app.post<{ Params: TypeParams; Body: unknown }>(
    `${prefix}/:objectType`,
    { config: { kind: 'objects.create' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const body = req.body;
      if (!isRecord(body) || !isRecord(body['properties'])) {
        return sendHubSpotError(
          reply,
          400,
          invalidInputBody(
            'Cannot build SimplePublicObjectInputForCreate, some of required attributes are not set [properties]',
          ),
        );
      }
      const plan = planAssociations(ctx, type, body['associations']);
      if (typeof plan === 'string') return sendHubSpotError(reply, 400, validationBody(plan));
      const result = createRecord(ctx.portal, type, body['properties']);
      if (!result.ok) {
        const [status, err] = failureBody(ctx, result.failure);
        return sendHubSpotError(reply, status, err);
      }
      applyAssociations(ctx, type, result.record.id, plan);
      return reply.code(201).send(toPublicObject(result.record, allNames(result.record), { nulls: false }));
    },
  );

  app.patch<{ Params: RecordParams; Body: unknown; Querystring: ReadQuery }>(
    `${prefix}/:objectType/:objectId`,
    { config: { kind: 'objects.update' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const body = req.body;
      if (!isRecord(body) || !isRecord(body['properties'])) {
        return sendHubSpotError(
          reply,
          400,
          invalidInputBody(
            'Cannot build SimplePublicObjectInput, some of required attributes are not set [properties]',
          ),
        );
      }
      const q = req.query;
      const idProperty =
        typeof q['idProperty'] === 'string' && q['idProperty'] !== '' ? q['idProperty'] : undefined;
      if (idProperty !== undefined && !isUniqueProperty(ctx.portal, type, idProperty)) {
        return sendHubSpotError(
          reply,
          400,
          validationBody(`${idProperty} is not a unique property of ${type.singularName}`),
        );
      }
      const result = updateRecord(ctx.portal, type, req.params.objectId, body['properties'], idProperty);
      if (!result.ok) {
        const [status, err] = failureBody(ctx, result.failure);
        return sendHubSpotError(reply, status, err);
      }
      return toPublicObject(result.record, result.names, { nulls: false });
    },
  );

  app.delete<{ Params: RecordParams }>(
    `${prefix}/:objectType/:objectId`,
    { config: { kind: 'objects.archive' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      // Archiving an id that is not there answers 204 as well, like batch/archive does.
      ctx.portal.records.archive(type.objectTypeId, req.params.objectId);
      return reply.code(204).send();
    },
  );
}
