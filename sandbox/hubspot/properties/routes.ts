import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import { API_USER_ID } from '../model/portal.ts';
import type { PropertyDefinition } from '../model/types.ts';
import { archivedParam, isRecord, typeOrReply } from '../objects/http.ts';
import { listParam } from '../objects/view.ts';
import { checkPropertyCreate, checkPropertyUpdate } from './create.ts';
import { alreadyExists, reject } from './rules.ts';

interface TypeParams {
  objectType: string;
}
interface PropertyParams extends TypeParams {
  propertyName: string;
}
type Query = Record<string, unknown>;

const PREFIX = '/crm/v3/properties';

/** Sensitive properties are left out of reads unless `dataSensitivity` asks for them (properties guide). */
function visible(p: PropertyDefinition, sensitivity: unknown): boolean {
  const level = p.dataSensitivity ?? 'non_sensitive';
  return sensitivity === undefined ? level === 'non_sensitive' : level === sensitivity;
}

const propertyNotFound = (name: string, typeRef: string) =>
  hubspotError({
    message: `Property ${name} does not exist for object type ${typeRef}`,
    category: 'OBJECT_NOT_FOUND',
  });

/** Properties API v3: definitions of one object type (model `Property` in crm-properties-v3). */
export function registerPropertyRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  app.get<{ Params: TypeParams; Querystring: Query }>(
    `${PREFIX}/:objectType`,
    { config: { kind: 'properties.list' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const only = listParam(req.query['properties']);
      const results = ctx.portal.properties
        .list(type.objectTypeId, { archived: archivedParam(req.query['archived']) })
        .filter((p) => visible(p, req.query['dataSensitivity']))
        .filter((p) => only === undefined || only.includes(p.name));
      return { results };
    },
  );

  app.get<{ Params: PropertyParams; Querystring: Query }>(
    `${PREFIX}/:objectType/:propertyName`,
    { config: { kind: 'properties.get' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const { propertyName } = req.params;
      const p = ctx.portal.properties.get(type.objectTypeId, propertyName, {
        archived: archivedParam(req.query['archived']),
      });
      return p === undefined
        ? sendHubSpotError(reply, 404, propertyNotFound(propertyName, req.params.objectType))
        : p;
    },
  );

  app.post<{ Params: TypeParams }>(
    `${PREFIX}/:objectType`,
    { config: { kind: 'properties.create' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const checked = checkPropertyCreate(ctx, type, req.body);
      if (!checked.ok) return sendHubSpotError(reply, checked.rejection.status, checked.rejection.body);
      const created = ctx.portal.properties.create(type.objectTypeId, checked.value, API_USER_ID);
      if (!created.ok) return sendHubSpotError(reply, 409, alreadyExists(checked.value.name).body);
      return reply.code(201).send(created.property);
    },
  );

  app.patch<{ Params: PropertyParams }>(
    `${PREFIX}/:objectType/:propertyName`,
    { config: { kind: 'properties.update' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const { propertyName } = req.params;
      const checked = checkPropertyUpdate(ctx, type, propertyName, req.body);
      if (checked === null)
        return sendHubSpotError(reply, 404, propertyNotFound(propertyName, req.params.objectType));
      if (!checked.ok) return sendHubSpotError(reply, checked.rejection.status, checked.rejection.body);
      return ctx.portal.properties.update(type.objectTypeId, propertyName, checked.value, API_USER_ID);
    },
  );

  app.delete<{ Params: PropertyParams }>(
    `${PREFIX}/:objectType/:propertyName`,
    { config: { kind: 'properties.archive' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const { propertyName } = req.params;
      const p = ctx.portal.properties.get(type.objectTypeId, propertyName);
      if (p === undefined)
        return sendHubSpotError(reply, 404, propertyNotFound(propertyName, req.params.objectType));
      if (p.modificationMetadata?.archivable === false) {
        const r = reject(`Property ${propertyName} is a HubSpot-defined property and cannot be archived.`);
        return sendHubSpotError(reply, r.status, r.body);
      }
      ctx.portal.properties.archive(type.objectTypeId, propertyName);
      return reply.code(204).send();
    },
  );

  registerBatchRoutes(app, ctx);
}

/** Batch create / read / archive (`BatchResponseProperty[WithErrors]`). */
function registerBatchRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  const inputsOf = (body: unknown): unknown[] =>
    isRecord(body) && Array.isArray(body['inputs']) ? (body['inputs'] as unknown[]) : [];

  app.post<{ Params: TypeParams }>(
    `${PREFIX}/:objectType/batch/create`,
    { config: { kind: 'properties.batch.create' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const startedAt = ctx.portal.now();
      const results: PropertyDefinition[] = [];
      const errors = [];
      for (const input of inputsOf(req.body)) {
        const checked = checkPropertyCreate(ctx, type, input);
        if (!checked.ok) {
          const { status: _s, correlationId: _c, ...rest } = checked.rejection.body;
          errors.push({
            status: 'error',
            context: {},
            ...rest,
            category: rest.category ?? 'VALIDATION_ERROR',
          });
          continue;
        }
        const created = ctx.portal.properties.create(type.objectTypeId, checked.value, API_USER_ID);
        if (created.ok) results.push(created.property);
      }
      const body = { status: 'COMPLETE', results, startedAt, completedAt: ctx.portal.now() };
      if (errors.length === 0) return reply.code(201).send(body);
      return reply.code(207).send({ ...body, numErrors: errors.length, errors });
    },
  );

  app.post<{ Params: TypeParams; Querystring: Query }>(
    `${PREFIX}/:objectType/batch/read`,
    { config: { kind: 'properties.batch.read' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const startedAt = ctx.portal.now();
      const archived = isRecord(req.body) && req.body['archived'] === true;
      const names = inputsOf(req.body).flatMap((i) =>
        isRecord(i) && typeof i['name'] === 'string' ? [i['name']] : [],
      );
      const results: PropertyDefinition[] = [];
      const missing: string[] = [];
      for (const name of names) {
        const p = ctx.portal.properties.get(type.objectTypeId, name, { archived });
        if (p === undefined) missing.push(name);
        else results.push(p);
      }
      const body = { status: 'COMPLETE', results, startedAt, completedAt: ctx.portal.now() };
      if (missing.length === 0) return body;
      const error = {
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `Could not find some properties of object type ${type.objectTypeId}: ${missing.join(', ')}`,
        context: { names: missing },
      };
      return reply.code(207).send({ ...body, numErrors: 1, errors: [error] });
    },
  );

  // 204 whatever the names (HubSpot documents it: "always, even for non-existent").
  app.post<{ Params: TypeParams }>(
    `${PREFIX}/:objectType/batch/archive`,
    { config: { kind: 'properties.batch.archive' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      for (const i of inputsOf(req.body)) {
        if (!isRecord(i) || typeof i['name'] !== 'string') continue;
        const p = ctx.portal.properties.get(type.objectTypeId, i['name']);
        if (p !== undefined && p.modificationMetadata?.archivable !== false) {
          ctx.portal.properties.archive(type.objectTypeId, i['name']);
        }
      }
      return reply.code(204).send();
    },
  );
}
