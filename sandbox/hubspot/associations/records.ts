import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError, validationBody } from '../errors.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import { typeOrReply } from '../objects/http.ts';
import { associatedLive, live, spec, specInput, unknownSpecs } from './common.ts';

interface ListParams {
  objectType: string;
  objectId: string;
  toObjectType: string;
}
interface PairParams extends ListParams {
  toObjectId: string;
}

/** The v4 paths and their date-versioned twins, which answer with the same shapes. */
const PREFIXES = ['/crm/v4/objects', '/crm/objects/2026-03'];
/** `limit` of the per-record list: default and maximum 500 (v4 guide). */
const MAX_PAGE = 500;

const notFound = (reply: FastifyReply, type: ObjectTypeDefinition, id: string) =>
  sendHubSpotError(
    reply,
    404,
    hubspotError({
      message: `No ${type.singularName} with id ${id} exists.`,
      category: 'OBJECT_NOT_FOUND',
      context: { id: [id] },
    }),
  );

/** Both records' types, and both records live, or undefined after HubSpot's 400 / 404. */
function endsOrReply(
  ctx: HubSpotContext,
  refs: [string, string, string, string],
  reply: FastifyReply,
): [ObjectTypeDefinition, ObjectTypeDefinition] | undefined {
  const [fromRef, fromId, toRef, toId] = refs;
  const from = typeOrReply(ctx, fromRef, reply);
  const to = from === undefined ? undefined : typeOrReply(ctx, toRef, reply);
  if (from === undefined || to === undefined) return undefined;
  if (!live(ctx, from, fromId)) return void notFound(reply, from, fromId);
  if (!live(ctx, to, toId)) return void notFound(reply, to, toId);
  return [from, to];
}

/** List (paged by target id) and archive every type between two records. */
function registerReads(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.get<{ Params: ListParams; Querystring: Record<string, unknown> }>(
    `${prefix}/:objectType/:objectId/associations/:toObjectType`,
    { config: { kind: 'associations.list' } },
    async (req, reply) => {
      const { objectType, objectId, toObjectType } = req.params;
      const from = typeOrReply(ctx, objectType, reply);
      const to = from === undefined ? undefined : typeOrReply(ctx, toObjectType, reply);
      if (from === undefined || to === undefined) return reply;
      const limit = Math.min(Math.max(Number(req.query['limit'] ?? MAX_PAGE) || MAX_PAGE, 1), MAX_PAGE);
      const after = Number(req.query['after'] ?? 0) || 0;
      const all = associatedLive(ctx, from, objectId, to).filter((a) => Number(a.toObjectId) >= after);
      const results = all
        .slice(0, limit)
        .map((a) => ({ toObjectId: a.toObjectId, associationTypes: a.types.map(spec) }));
      const next = all[limit];
      if (next === undefined) return { results };
      const link = new URL(req.url, ctx.baseUrl());
      link.searchParams.set('after', next.toObjectId);
      return { results, paging: { next: { after: next.toObjectId, link: link.toString() } } };
    },
  );

  app.delete<{ Params: PairParams }>(
    `${prefix}/:objectType/:objectId/associations/:toObjectType/:toObjectId`,
    { config: { kind: 'associations.archive' } },
    async (req, reply) => {
      const p = req.params;
      const from = typeOrReply(ctx, p.objectType, reply);
      const to = from === undefined ? undefined : typeOrReply(ctx, p.toObjectType, reply);
      if (from === undefined || to === undefined) return reply;
      ctx.portal.associations.remove(from.objectTypeId, p.objectId, to.objectTypeId, p.toObjectId);
      return reply.code(204).send();
    },
  );
}

/** Create with labels (`LabelsBetweenObjectPair`, 201) and create the default (`BatchResponsePublicDefaultAssociation`, 200). */
function registerCreates(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.put<{ Params: PairParams; Body: unknown }>(
    `${prefix}/:objectType/:objectId/associations/:toObjectType/:toObjectId`,
    { config: { kind: 'associations.create' } },
    async (req, reply) => {
      const p = req.params;
      const ends = endsOrReply(ctx, [p.objectType, p.objectId, p.toObjectType, p.toObjectId], reply);
      if (ends === undefined) return reply;
      const [from, to] = ends;
      const body = Array.isArray(req.body) ? req.body : [];
      const unknown = unknownSpecs(ctx, from, to, body);
      if (body.length === 0 || unknown.length > 0) {
        const what = unknown.length > 0 ? `unknown types ${unknown.join(', ')}` : 'an empty list';
        const message = `The body must be a list of association types from ${from.singularName} to ${to.singularName} ({associationCategory, associationTypeId}); got ${what}.`;
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      for (const raw of body) {
        const s = specInput(raw);
        if (s !== undefined)
          ctx.portal.associations.associate(
            from.objectTypeId,
            p.objectId,
            to.objectTypeId,
            p.toObjectId,
            s.typeId,
          );
      }
      const types = associatedLive(ctx, from, p.objectId, to).find(
        (a) => a.toObjectId === p.toObjectId,
      )?.types;
      return reply.code(201).send({
        fromObjectTypeId: from.objectTypeId,
        fromObjectId: p.objectId,
        toObjectTypeId: to.objectTypeId,
        toObjectId: p.toObjectId,
        labels: (types ?? []).flatMap((t) => (t.label === null ? [] : [t.label])),
      });
    },
  );

  app.put<{ Params: PairParams }>(
    `${prefix}/:objectType/:objectId/associations/default/:toObjectType/:toObjectId`,
    { config: { kind: 'associations.default' } },
    async (req, reply) => {
      const p = req.params;
      const ends = endsOrReply(ctx, [p.objectType, p.objectId, p.toObjectType, p.toObjectId], reply);
      if (ends === undefined) return reply;
      const [from, to] = ends;
      const startedAt = ctx.portal.now();
      const type = ctx.portal.associations.defaultType(from.objectTypeId, to.objectTypeId);
      if (type === undefined) {
        const message = `There is no default association type from ${from.singularName} to ${to.singularName}.`;
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      ctx.portal.associations.associate(
        from.objectTypeId,
        p.objectId,
        to.objectTypeId,
        p.toObjectId,
        type.typeId,
      );
      const result = {
        from: { id: p.objectId },
        to: { id: p.toObjectId },
        associationSpec: { associationCategory: type.category, associationTypeId: type.typeId },
      };
      return { status: 'COMPLETE', results: [result], startedAt, completedAt: ctx.portal.now() };
    },
  );
}

/**
 * Associations v4 on one record: list (paged by target id), create with labels (`LabelsBetweenObjectPair`,
 * 201), create the default (`BatchResponsePublicDefaultAssociation`, 200), archive every type (204).
 * https://developers.hubspot.com/docs/api-reference/latest/crm/associations/associations-v4/guide
 */
export function registerRecordAssociationRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  for (const prefix of PREFIXES) {
    registerReads(app, ctx, prefix);
    registerCreates(app, ctx, prefix);
  }
}
