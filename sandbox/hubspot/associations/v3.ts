import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import type { HubSpotBatchError } from '../errors.ts';
import { batchAnswer, inputsOrReply } from '../objects/batch-common.ts';
import { idOf, live, missingObject, pairRoute, readAssociations, v3Name, v3TypeId } from './common.ts';

const PREFIX = '/crm/v3/associations/:fromObjectType/:toObjectType/batch';

/**
 * Associations v3, which name a type by text (`contact_to_company`) instead of a category and an id:
 * batch create (201 / 207), read (200 / 207, one `{id, type}` per type) and archive (204). Backed by
 * the same store as v4, so either version sees what the other wrote.
 * https://developers.hubspot.com/docs/api-reference/legacy/crm/associations/associations-v3/guide
 */
export function registerV3AssociationRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/create`,
    'associations.v3.batch.create',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const startedAt = ctx.portal.now();
      const inputs = inputsOrReply(req.body, 'BatchInputPublicAssociation', reply);
      if (inputs === undefined) return reply;
      await ctx.realism.recordDelay(inputs.length);
      const results = [];
      const errors: HubSpotBatchError[] = [];
      for (const input of inputs) {
        const fromId = idOf(input['from']);
        const toId = idOf(input['to']);
        const name = String(input['type'] ?? '');
        const typeId = v3TypeId(ctx, from, to, name);
        if (!live(ctx, from, fromId) || !live(ctx, to, toId)) {
          errors.push(live(ctx, from, fromId) ? missingObject(to, toId) : missingObject(from, fromId));
          continue;
        }
        if (typeId === undefined) {
          errors.push({
            status: 'error',
            category: 'VALIDATION_ERROR',
            message: `${name} is not a valid association type between ${from.singularName} and ${to.singularName}.`,
            context: { type: [name] },
          });
          continue;
        }
        ctx.portal.associations.associate(from.objectTypeId, fromId, to.objectTypeId, toId, typeId);
        results.push({ from: { id: fromId }, to: { id: toId }, type: name });
      }
      return reply
        .code(errors.length > 0 ? 207 : 201)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now()));
    },
  );

  pairRoute(app, ctx, 'POST', `${PREFIX}/read`, 'associations.v3.batch.read', async (req, reply, pair) => {
    const [from, to] = pair;
    const startedAt = ctx.portal.now();
    const inputs = inputsOrReply(req.body, 'BatchInputPublicObjectId', reply);
    if (inputs === undefined) return reply;
    await ctx.realism.recordDelay(inputs.length);
    const { results, errors } = readAssociations(ctx, pair, inputs, 'OBJECT_NOT_FOUND', (id, found) => ({
      from: { id },
      to: found.flatMap((f) => f.types.map((t) => ({ id: f.toObjectId, type: v3Name(ctx, from, to, t) }))),
    }));
    return reply
      .code(errors.length > 0 ? 207 : 200)
      .send(batchAnswer(startedAt, results, errors, ctx.portal.now()));
  });

  registerV3Archive(app, ctx);
}

/** v3 batch archive: removes the named type (and its inverse); unknown names are skipped, 204. */
function registerV3Archive(app: FastifyInstance, ctx: HubSpotContext): void {
  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/archive`,
    'associations.v3.batch.archive',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const inputs = inputsOrReply(req.body, 'BatchInputPublicAssociation', reply);
      if (inputs === undefined) return reply;
      await ctx.realism.recordDelay(inputs.length);
      for (const input of inputs) {
        const typeId = v3TypeId(ctx, from, to, String(input['type'] ?? ''));
        if (typeId === undefined) continue;
        const fromId = idOf(input['from']);
        ctx.portal.associations.removeTypes(from.objectTypeId, fromId, to.objectTypeId, idOf(input['to']), [
          typeId,
        ]);
      }
      return reply.code(204).send();
    },
  );
}
