import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import { API_USER_ID } from '../model/portal.ts';
import type { AssociationDefinition, ObjectTypeDefinition } from '../model/types.ts';
import { reject } from '../properties/rules.ts';
import {
  associationDefinition,
  objectSchema,
  objectTypeDefinition,
  type SchemaViewOptions,
} from './serialize.ts';
import { checkReferences, checkSchemaCreate } from './validate.ts';

interface TypeParams {
  objectType: string;
}
type Query = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const flag = (v: unknown, fallback: boolean): boolean =>
  v === undefined ? fallback : v === true || v === 'true';
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

function view(q: Query): SchemaViewOptions {
  return {
    properties: flag(q['includePropertyDefinitions'], true),
    associations: flag(q['includeAssociationDefinitions'], true),
    audit: flag(q['includeAuditMetadata'], true),
  };
}

const sendReject = (reply: FastifyReply, r: { status: number; body: ReturnType<typeof hubspotError> }) =>
  sendHubSpotError(reply, r.status, r.body);

/** The schema a path names (`2-…`, `p{portalId}_{name}`, `p_{name}`, the name, or a standard type), else a 404. */
function schemaOrReply(
  ctx: HubSpotContext,
  ref: string,
  reply: FastifyReply,
): ObjectTypeDefinition | undefined {
  const t = ctx.portal.types.resolve(ref);
  if (t !== undefined) return t;
  sendHubSpotError(
    reply,
    404,
    hubspotError({ message: `Unable to find object type ${ref}`, category: 'OBJECT_NOT_FOUND' }),
  );
  return undefined;
}

/**
 * Schemas API (custom object definitions), served under both paths in use: `/crm/v3/schemas`
 * (docs before Sept 2024, most integrations) and `/crm-object-schemas/v3/schemas` (the current
 * spec and @hubspot/api-client 13).
 */
export function registerSchemaRoutes(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.get<{ Querystring: Query }>(prefix, { config: { kind: 'schemas.list' } }, async (req) => ({
    results: ctx.portal.types
      .list({ custom: true, archived: flag(req.query['archived'], false) })
      .map((t) => objectSchema(ctx, t, view(req.query))),
  }));

  app.get<{ Params: TypeParams; Querystring: Query }>(
    `${prefix}/:objectType`,
    { config: { kind: 'schemas.get' } },
    async (req, reply) => {
      const t = schemaOrReply(ctx, req.params.objectType, reply);
      return t === undefined ? reply : objectSchema(ctx, t, view(req.query));
    },
  );

  app.post(prefix, { config: { kind: 'schemas.create' } }, async (req, reply) => {
    const checked = checkSchemaCreate(ctx, req.body);
    if (!checked.ok) return sendReject(reply, checked.rejection);
    const t = ctx.portal.defineObjectType(checked.value, { userId: API_USER_ID });
    return reply.code(201).send(objectSchema(ctx, t));
  });

  app.patch<{ Params: TypeParams }>(
    `${prefix}/:objectType`,
    { config: { kind: 'schemas.update' } },
    async (req, reply) => {
      const t = schemaOrReply(ctx, req.params.objectType, reply);
      if (t === undefined) return reply;
      if (!t.custom)
        return sendReject(reply, reject(`Object type ${t.fullyQualifiedName} is not a custom object.`));
      const body = isRecord(req.body) ? req.body : {};
      const patch: Partial<ObjectTypeDefinition> = {};
      const required = strings(body['requiredProperties']);
      const searchable = strings(body['searchableProperties']);
      const secondary = strings(body['secondaryDisplayProperties']);
      const primary =
        typeof body['primaryDisplayProperty'] === 'string' ? body['primaryDisplayProperty'] : undefined;
      const known = new Set(ctx.portal.properties.list(t.objectTypeId).map((p) => p.name));
      const refs = checkReferences(known, {
        requiredProperties: required ?? [],
        searchableProperties: searchable ?? [],
        secondaryDisplayProperties: secondary ?? [],
        primaryDisplayProperty: primary === undefined ? [] : [primary],
      });
      if (refs !== null) return sendReject(reply, refs);
      if (required !== undefined) patch.requiredProperties = required;
      if (searchable !== undefined) patch.searchableProperties = searchable;
      if (secondary !== undefined) patch.secondaryDisplayProperties = secondary;
      if (primary !== undefined) patch.primaryDisplayProperty = primary;
      if (isRecord(body['labels'])) {
        const l = body['labels'];
        patch.labels = {
          singular: typeof l['singular'] === 'string' ? l['singular'] : t.labels.singular,
          plural: typeof l['plural'] === 'string' ? l['plural'] : t.labels.plural,
        };
      }
      if (typeof body['description'] === 'string') patch.description = body['description'];
      if (typeof body['restorable'] === 'boolean') patch.restorable = body['restorable'];
      if (typeof body['allowsSensitiveProperties'] === 'boolean') {
        patch.allowsSensitiveProperties = body['allowsSensitiveProperties'];
      }
      let next = ctx.portal.types.update(t.objectTypeId, {
        ...patch,
        updatedAt: ctx.portal.now(),
        updatedByUserId: Number(API_USER_ID),
      }) as ObjectTypeDefinition;
      if (body['clearDescription'] === true) {
        const { description: _d, ...rest } = next;
        ctx.portal.types.register(rest);
        next = rest;
      }
      return objectTypeDefinition(ctx, next);
    },
  );

  app.delete<{ Params: TypeParams; Querystring: Query }>(
    `${prefix}/:objectType`,
    { config: { kind: 'schemas.archive' } },
    async (req, reply) => {
      const t = schemaOrReply(ctx, req.params.objectType, reply);
      if (t === undefined) return reply;
      if (!t.custom)
        return sendReject(reply, reject(`Object type ${t.fullyQualifiedName} is not a custom object.`));
      if (flag(req.query['archived'], false)) {
        // Hard delete ("purge") is only allowed once the schema is archived.
        if (!t.archived)
          return sendReject(
            reply,
            reject(`Object type ${t.objectTypeId} must be archived before it is purged.`),
          );
        ctx.portal.removeObjectType(t.objectTypeId);
        return reply.code(204).send();
      }
      // HubSpot refuses to archive a schema that still has records.
      if (ctx.portal.records.list(t.objectTypeId).length > 0) {
        return sendReject(
          reply,
          reject(`Object type ${t.objectTypeId} still has records; delete them first.`),
        );
      }
      ctx.portal.types.update(t.objectTypeId, { archived: true, updatedAt: ctx.portal.now() });
      return reply.code(204).send();
    },
  );

  registerAssociationRoutes(app, ctx, prefix);
}

function registerAssociationRoutes(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.post<{ Params: TypeParams }>(
    `${prefix}/:objectType/associations`,
    { config: { kind: 'schemas.associations.create' } },
    async (req, reply) => {
      const t = schemaOrReply(ctx, req.params.objectType, reply);
      if (t === undefined) return reply;
      const body = isRecord(req.body) ? req.body : {};
      const from = ctx.portal.types.resolveActive(String(body['fromObjectTypeId'] ?? ''));
      const to = ctx.portal.types.resolveActive(String(body['toObjectTypeId'] ?? ''));
      if (from === undefined || to === undefined) {
        return sendReject(
          reply,
          reject('fromObjectTypeId and toObjectTypeId must name existing object types.'),
        );
      }
      const now = ctx.portal.now();
      const name = typeof body['name'] === 'string' ? body['name'] : undefined;
      // The definition is the pair's association types: its id is the from → to type id, which
      // the v4 labels list, createDefault and create take (the inverse gets the next id).
      const [forward] = ctx.portal.associations.definePair(from.objectTypeId, to.objectTypeId, name);
      const def: AssociationDefinition = {
        id: String(forward.typeId),
        fromObjectTypeId: from.objectTypeId,
        toObjectTypeId: to.objectTypeId,
        ...(typeof body['name'] === 'string' ? { name: body['name'] } : {}),
        createdAt: now,
        updatedAt: now,
      };
      ctx.portal.types.update(t.objectTypeId, { associations: [...t.associations, def] });
      return reply.code(201).send(associationDefinition(def));
    },
  );

  app.delete<{ Params: TypeParams & { associationIdentifier: string } }>(
    `${prefix}/:objectType/associations/:associationIdentifier`,
    { config: { kind: 'schemas.associations.archive' } },
    async (req, reply) => {
      const t = schemaOrReply(ctx, req.params.objectType, reply);
      if (t === undefined) return reply;
      const id = req.params.associationIdentifier;
      const def = t.associations.find((a) => a.id === id);
      if (def !== undefined)
        ctx.portal.associations.deletePair(def.fromObjectTypeId, def.toObjectTypeId, Number(def.id));
      ctx.portal.types.update(t.objectTypeId, { associations: t.associations.filter((a) => a.id !== id) });
      return reply.code(204).send();
    },
  );
}
