import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { type HubSpotBatchError, sendHubSpotError, validationBody } from '../errors.ts';
import { batchAnswer, inputsOrReply } from '../objects/batch-common.ts';
import { idOf, live, missingObject, pairRoute, specInput, unknownSpecs } from './common.ts';

const PREFIX = '/crm/v4/associations/:fromObjectType/:toObjectType/batch';
const TOO_MANY =
  'The maximum number of inputs supported in a batch is 2000. Please reduce the number of items and try again';

/**
 * v4 batch `associate/default` (the pair's unlabelled HubSpot-defined type, answered as
 * `BatchResponsePublicDefaultAssociation`) and `labels/archive` (removes only the listed types and
 * keeps the others, 204).
 * https://developers.hubspot.com/docs/api-reference/latest/crm/associations/associations-v4/guide
 */
export function registerBatchDefaultRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/associate/default`,
    'associations.batch.default',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const startedAt = ctx.portal.now();
      const model = 'BatchInputPublicDefaultAssociationMultiPost';
      const inputs = inputsOrReply(req.body, model, reply, 2000, TOO_MANY);
      if (inputs === undefined) return reply;
      const type = ctx.portal.associations.defaultType(from.objectTypeId, to.objectTypeId);
      if (type === undefined) {
        const message = `There is no default association type from ${from.singularName} to ${to.singularName}.`;
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      await ctx.realism.recordDelay(inputs.length);
      const results = [];
      const errors: HubSpotBatchError[] = [];
      for (const input of inputs) {
        const fromId = idOf(input['from']);
        const toId = idOf(input['to']);
        const missing = !live(ctx, from, fromId) ? missingObject(from, fromId) : undefined;
        const bad = missing ?? (!live(ctx, to, toId) ? missingObject(to, toId) : undefined);
        if (bad !== undefined) {
          errors.push(bad);
          continue;
        }
        ctx.portal.associations.associate(from.objectTypeId, fromId, to.objectTypeId, toId, type.typeId);
        results.push({
          from: { id: fromId },
          to: { id: toId },
          associationSpec: { associationCategory: type.category, associationTypeId: type.typeId },
        });
      }
      return batchAnswer(startedAt, results, errors, ctx.portal.now());
    },
  );

  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/labels/archive`,
    'associations.batch.labels.archive',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const inputs = inputsOrReply(req.body, 'BatchInputPublicAssociationMultiPost', reply, 2000, TOO_MANY);
      if (inputs === undefined) return reply;
      for (const input of inputs) {
        const types = Array.isArray(input['types']) ? input['types'] : [];
        const unknown = unknownSpecs(ctx, from, to, types);
        if (types.length === 0 || unknown.length > 0) {
          const what = unknown.length > 0 ? unknown.join(', ') : 'no types';
          const message = `types: ${what} between ${from.singularName} and ${to.singularName}; list the association types to remove as {associationCategory, associationTypeId}.`;
          return sendHubSpotError(reply, 400, validationBody(message));
        }
      }
      await ctx.realism.recordDelay(inputs.length);
      for (const input of inputs) {
        const types = (input['types'] as unknown[]).flatMap((t) => {
          const s = specInput(t);
          return s === undefined ? [] : [s.typeId];
        });
        const fromId = idOf(input['from']);
        const toId = idOf(input['to']);
        ctx.portal.associations.removeTypes(from.objectTypeId, fromId, to.objectTypeId, toId, types);
      }
      return reply.code(204).send();
    },
  );
}
