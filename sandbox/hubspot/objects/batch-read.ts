import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { sendHubSpotError, validationBody } from '../errors.ts';
import {
  batchAnswer,
  inputsOrReply,
  MAX_BATCH_WITH_HISTORY,
  notFoundError,
  TOO_MANY_HISTORY,
  type TypeParams,
} from './batch-common.ts';
import { archivedParam, isRecord, typeOrReply } from './http.ts';
import { knownNames, listParam, type PublicObject, readNames, toPublicObject } from './view.ts';
import { findRecord, isUniqueProperty } from './writes.ts';

/** `POST …/batch/read`: 200 when every input is found, 207 with one OBJECT_NOT_FOUND entry otherwise. */
export function registerBatchReadRoute(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  const route = `${prefix}/:objectType/batch`;

  app.post<{ Params: TypeParams; Body: unknown; Querystring: Record<string, unknown> }>(
    `${route}/read`,
    { config: { kind: 'objects.batch.read' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const startedAt = ctx.portal.now();
      const body = isRecord(req.body) ? req.body : {};
      const history = knownNames(ctx.portal, type, listParam(body['propertiesWithHistory']));
      const withHistory =
        Array.isArray(body['propertiesWithHistory']) && body['propertiesWithHistory'].length > 0;
      const inputs = withHistory
        ? inputsOrReply(
            req.body,
            'BatchReadInputSimplePublicObjectId',
            reply,
            MAX_BATCH_WITH_HISTORY,
            TOO_MANY_HISTORY,
          )
        : inputsOrReply(req.body, 'BatchReadInputSimplePublicObjectId', reply);
      if (inputs === undefined) return reply;
      const idProperty =
        typeof body['idProperty'] === 'string' && body['idProperty'] !== '' ? body['idProperty'] : undefined;
      if (idProperty !== undefined && !isUniqueProperty(ctx.portal, type, idProperty)) {
        return sendHubSpotError(
          reply,
          400,
          validationBody(`${idProperty} is not a unique property of ${type.singularName}`),
        );
      }
      const names = readNames(ctx.portal, type, listParam(body['properties']));
      const archived = archivedParam(req.query['archived']);
      await ctx.realism.recordDelay(inputs.length);
      const results: PublicObject[] = [];
      const seen = new Set<string>();
      const missing: string[] = [];
      for (const input of inputs) {
        const id = String(input['id'] ?? '');
        const record = findRecord(ctx.portal, type, id, idProperty, archived);
        if (record === undefined) {
          if (!missing.includes(id)) missing.push(id);
          continue;
        }
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        results.push(toPublicObject(record, names, { historyNames: history }));
      }
      const errors = missing.length > 0 ? [notFoundError(type, missing)] : [];
      return reply
        .code(errors.length > 0 ? 207 : 200)
        .send(batchAnswer(startedAt, results, errors, ctx.portal.now()));
    },
  );
}
