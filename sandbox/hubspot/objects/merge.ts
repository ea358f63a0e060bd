import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError, validationBody } from '../errors.ts';
import { isRecord, readOnlyTypeBody, typeOrReply } from './http.ts';
import { allNames, toPublicObject } from './view.ts';
import { findRecord } from './writes.ts';

const missing = (id: string) =>
  hubspotError({ message: `Object ${id} not found`, category: 'OBJECT_NOT_FOUND', context: { id: [id] } });

/**
 * Merge (`POST …/{objectType}/merge`, `PublicMergeInput`) and the contacts' GDPR delete
 * (`POST …/contacts/gdpr-delete`, `PublicGdprDeleteInput`). A merge keeps the primary record's
 * values, fills its empty properties from the merged one and archives the merged one; a GDPR delete
 * removes the record for good, archived or not. HubSpot's own merge also moves associations and
 * keeps the merged id pointing at the primary; the sandbox does neither.
 */
export function registerMergeRoutes(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.post<{ Params: { objectType: string }; Body: unknown }>(
    `${prefix}/:objectType/merge`,
    { config: { kind: 'objects.merge' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      if (type.readOnly) return sendHubSpotError(reply, 400, readOnlyTypeBody(type));
      const body = isRecord(req.body) ? req.body : {};
      const primaryId = body['primaryObjectId'];
      const mergedId = body['objectIdToMerge'];
      if (typeof primaryId !== 'string' || typeof mergedId !== 'string') {
        const message =
          'Invalid input JSON on line 1, column 1: Cannot build PublicMergeInput, some of required attributes are not set [objectIdToMerge, primaryObjectId]';
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      if (primaryId === mergedId)
        return sendHubSpotError(reply, 400, validationBody('An object cannot be merged with itself.'));
      const primary = findRecord(ctx.portal, type, primaryId);
      if (primary === undefined) return sendHubSpotError(reply, 404, missing(primaryId));
      const merged = findRecord(ctx.portal, type, mergedId);
      if (merged === undefined) return sendHubSpotError(reply, 404, missing(mergedId));
      const fill: Record<string, string> = {};
      for (const [name, value] of Object.entries(merged.properties)) {
        const own = primary.properties[name];
        if (
          value !== '' &&
          (own === undefined || own === '') &&
          ctx.portal.properties.peek(type.objectTypeId, name)?.modificationMetadata?.readOnlyValue !== true
        )
          fill[name] = value;
      }
      const updated = ctx.portal.records.update(type, primary.id, fill) ?? primary;
      ctx.portal.records.archive(type.objectTypeId, merged.id);
      return toPublicObject(updated, allNames(updated), { nulls: false });
    },
  );

  app.post<{ Body: unknown }>(
    `${prefix}/contacts/gdpr-delete`,
    { config: { kind: 'objects.gdprDelete' } },
    async (req, reply) => {
      const type = ctx.portal.types.resolve('0-1');
      const body = isRecord(req.body) ? req.body : {};
      const objectId = body['objectId'];
      if (type === undefined || typeof objectId !== 'string') {
        const message =
          'Invalid input JSON on line 1, column 1: Cannot build PublicGdprDeleteInput, some of required attributes are not set [objectId]';
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      const idProperty = typeof body['idProperty'] === 'string' ? body['idProperty'] : undefined;
      const record =
        findRecord(ctx.portal, type, objectId, idProperty) ??
        findRecord(ctx.portal, type, objectId, idProperty, true);
      if (record === undefined) return sendHubSpotError(reply, 404, missing(objectId));
      ctx.portal.records.purge(type.objectTypeId, record.id);
      return reply.code(204).send();
    },
  );
}
