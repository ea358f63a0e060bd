import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { type HubSpotBatchError, hubspotError, sendHubSpotError, validationBody } from '../errors.ts';
import { batchAnswer, inputsOrReply } from '../objects/batch-common.ts';
import { isRecord } from '../objects/http.ts';
import { registerBatchDefaultRoutes } from './batch-default.ts';
import { idOf, live, missingObject, pairRoute, readAssociations, spec } from './common.ts';
import { registerRecordAssociationRoutes } from './records.ts';
import { registerUsageReportRoute } from './usage-report.ts';
import { registerV3AssociationRoutes } from './v3.ts';

const PREFIX = '/crm/v4/associations/:fromObjectType/:toObjectType';

/**
 * Error entries carry no `subCategory`: the v4 document types it as an object, which a string would not match.
 *
 * Associations v4: the types between two object types (definitions and labels) and batch
 * read / create / associate-default / archive between records. Associations are kept both ways.
 */
export function registerAssociationsRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  registerBatchDefaultRoutes(app, ctx);
  registerRecordAssociationRoutes(app, ctx);
  registerV3AssociationRoutes(app, ctx);
  registerUsageReportRoute(app, ctx);
  pairRoute(app, ctx, 'GET', `${PREFIX}/labels`, 'associations.labels.list', async (_req, _reply, pair) => {
    return { results: ctx.portal.associations.types(pair[0].objectTypeId, pair[1].objectTypeId).map(spec) };
  });

  pairRoute(app, ctx, 'POST', `${PREFIX}/labels`, 'associations.labels.create', async (req, reply, pair) => {
    const body = isRecord(req.body) ? req.body : {};
    const label = body['label'];
    const name = body['name'];
    if (typeof label !== 'string' || label === '' || typeof name !== 'string' || name === '') {
      return sendHubSpotError(
        reply,
        400,
        validationBody(
          'Invalid input JSON on line 1, column 1: Cannot build PublicAssociationDefinitionCreateRequest, some of required attributes are not set [label, name]',
        ),
      );
    }
    const inverse = typeof body['inverseLabel'] === 'string' ? body['inverseLabel'] : undefined;
    const created = ctx.portal.associations.defineLabel(
      pair[0].objectTypeId,
      pair[1].objectTypeId,
      label,
      inverse,
    );
    return { results: created.map(spec) };
  });

  // Rename (204) and delete (204) a user-defined label; HubSpot's own types and unknown ids are 404.
  const noSuchLabel = (typeId: unknown) =>
    hubspotError({
      message: `No user-defined association label with type id ${String(typeId)} exists between these object types.`,
      category: 'OBJECT_NOT_FOUND',
    });
  pairRoute(app, ctx, 'PUT', `${PREFIX}/labels`, 'associations.labels.update', async (req, reply, pair) => {
    const body = isRecord(req.body) ? req.body : {};
    const typeId = body['associationTypeId'];
    const label = body['label'];
    const inverse = body['inverseLabel'];
    if (!Number.isInteger(typeId) || typeof label !== 'string' || label === '') {
      return sendHubSpotError(
        reply,
        400,
        validationBody(
          'Invalid input JSON on line 1, column 1: Cannot build PublicAssociationDefinitionUpdateRequest, some of required attributes are not set [associationTypeId, label]',
        ),
      );
    }
    const renamed = ctx.portal.associations.renameLabel(
      pair[0].objectTypeId,
      pair[1].objectTypeId,
      typeId as number,
      label,
      typeof inverse === 'string' && inverse !== '' ? inverse : undefined,
    );
    if (!renamed) return sendHubSpotError(reply, 404, noSuchLabel(typeId));
    return reply.code(204).send();
  });
  pairRoute(
    app,
    ctx,
    'DELETE',
    `${PREFIX}/labels/:associationTypeId`,
    'associations.labels.archive',
    async (req, reply, pair) => {
      const typeId = Number(req.params['associationTypeId']);
      const deleted =
        Number.isInteger(typeId) &&
        ctx.portal.associations.deleteLabel(pair[0].objectTypeId, pair[1].objectTypeId, typeId);
      if (!deleted) return sendHubSpotError(reply, 404, noSuchLabel(req.params['associationTypeId']));
      return reply.code(204).send();
    },
  );

  pairRoute(app, ctx, 'POST', `${PREFIX}/batch/read`, 'associations.batch.read', async (req, reply, pair) => {
    const [_from, _to] = pair;
    const startedAt = ctx.portal.now();
    const inputs = inputsOrReply(
      req.body,
      'BatchInputPublicFetchAssociationsBatchRequest',
      reply,
      1000,
      'The maximum number of inputs supported in a batch is 1000. Please reduce the number of items and try again',
    );
    if (inputs === undefined) return reply;
    await ctx.realism.recordDelay(inputs.length);
    const { results, errors } = readAssociations(ctx, pair, inputs, 'VALIDATION_ERROR', (id, found) => ({
      from: { id },
      to: found.map((f) => ({ toObjectId: f.toObjectId, associationTypes: f.types.map(spec) })),
    }));
    return reply
      .code(errors.length > 0 ? 207 : 200)
      .send(batchAnswer(startedAt, results, errors, ctx.portal.now()));
  });

  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/batch/create`,
    'associations.batch.create',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const startedAt = ctx.portal.now();
      const inputs = inputsOrReply(
        req.body,
        'BatchInputPublicAssociationMultiPost',
        reply,
        2000,
        'The maximum number of inputs supported in a batch is 2000. Please reduce the number of items and try again',
      );
      if (inputs === undefined) return reply;
      const known = new Map(
        ctx.portal.associations.types(from.objectTypeId, to.objectTypeId).map((t) => [t.typeId, t]),
      );
      await ctx.realism.recordDelay(inputs.length);
      const results = [];
      const errors: HubSpotBatchError[] = [];
      for (const input of inputs) {
        const fromId = idOf(input['from']);
        const toId = idOf(input['to']);
        const types = Array.isArray(input['types']) ? input['types'].filter(isRecord) : [];
        if (!live(ctx, from, fromId)) {
          errors.push(missingObject(from, fromId));
          continue;
        }
        if (!live(ctx, to, toId)) {
          errors.push(missingObject(to, toId));
          continue;
        }
        const bad = types.find((t) => {
          const k = known.get(Number(t['associationTypeId']));
          return k === undefined || k.category !== t['associationCategory'];
        });
        if (types.length === 0 || bad !== undefined) {
          errors.push({
            status: 'error',
            category: 'VALIDATION_ERROR',
            message: `${bad === undefined ? 'No association type given' : `${String(bad['associationCategory'])}/${String(bad['associationTypeId'])} is not a valid association type`} between ${from.singularName} and ${to.singularName}.`,
            context: { fromObjectId: [fromId], toObjectId: [toId] },
          });
          continue;
        }
        for (const t of types) {
          ctx.portal.associations.associate(
            from.objectTypeId,
            fromId,
            to.objectTypeId,
            toId,
            Number(t['associationTypeId']),
          );
        }
        const labels =
          ctx.portal.associations
            .of(from.objectTypeId, fromId, to.objectTypeId)
            .find((f) => f.toObjectId === toId)
            ?.types.flatMap((t) => (t.label === null ? [] : [t.label])) ?? [];
        results.push({
          fromObjectTypeId: from.objectTypeId,
          fromObjectId: fromId,
          toObjectTypeId: to.objectTypeId,
          toObjectId: toId,
          labels,
        });
      }
      return reply
        .code(errors.length > 0 ? 207 : 201)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now()));
    },
  );

  pairRoute(
    app,
    ctx,
    'POST',
    `${PREFIX}/batch/archive`,
    'associations.batch.archive',
    async (req, reply, pair) => {
      const [from, to] = pair;
      const inputs = inputsOrReply(
        req.body,
        'BatchInputPublicAssociationMultiArchive',
        reply,
        2000,
        'The maximum number of inputs supported in a batch is 2000. Please reduce the number of items and try again',
      );
      if (inputs === undefined) return reply;
      await ctx.realism.recordDelay(inputs.length);
      for (const input of inputs) {
        const fromId = idOf(input['from']);
        const targets = Array.isArray(input['to']) ? input['to'] : [];
        for (const t of targets)
          ctx.portal.associations.remove(from.objectTypeId, fromId, to.objectTypeId, idOf(t));
      }
      return reply.code(204).send();
    },
  );
}
