import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError, validationBody } from '../errors.ts';
import type { ObjectTypeDefinition, Pipeline } from '../model/types.ts';
import { isRecord, typeOrReply } from '../objects/http.ts';
import { registerPipelineAuditRoutes } from './audits.ts';
import { stageOf, stagesOf } from './stage-input.ts';
import { registerPipelineWriteRoutes } from './writes.ts';

interface TypeParams {
  objectType: string;
}
interface PipelineParams extends TypeParams {
  pipelineId: string;
}
interface StageParams extends PipelineParams {
  stageId: string;
}

const PREFIX = '/crm/v3/pipelines';

export const notFound = (reply: FastifyReply, message: string) =>
  sendHubSpotError(reply, 404, hubspotError({ message, category: 'OBJECT_NOT_FOUND' }));

/** Deals and tickets have pipelines; other types answer HubSpot's 400 for a type without them. */
export function pipelineType(
  ctx: HubSpotContext,
  ref: string,
  reply: FastifyReply,
): ObjectTypeDefinition | undefined {
  const type = typeOrReply(ctx, ref, reply);
  if (type === undefined) return undefined;
  if (ctx.portal.pipelines.types().includes(type.objectTypeId)) return type;
  sendHubSpotError(
    reply,
    400,
    hubspotError({ message: `Object type ${ref} does not support pipelines`, category: 'VALIDATION_ERROR' }),
  );
  return undefined;
}

/** Pipelines API v3: pipelines with their stages (`Pipeline`, `PipelineStage`), read, create and patch. */
export function registerPipelinesRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  registerPipelineWriteRoutes(app, ctx);
  registerPipelineAuditRoutes(app, ctx);
  app.post<{ Params: TypeParams; Body: unknown }>(
    `${PREFIX}/:objectType`,
    { config: { kind: 'pipelines.create' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const body = isRecord(req.body) ? req.body : {};
      const label = body['label'];
      if (
        typeof label !== 'string' ||
        label === '' ||
        typeof body['displayOrder'] !== 'number' ||
        !Array.isArray(body['stages'])
      ) {
        return sendHubSpotError(
          reply,
          400,
          validationBody(
            'Invalid input JSON on line 1, column 1: Cannot build PipelineInput, some of required attributes are not set [displayOrder, label, stages]',
          ),
        );
      }
      if (ctx.portal.pipelines.list(type.objectTypeId).some((p) => p.label === label)) {
        return sendHubSpotError(
          reply,
          409,
          hubspotError({ message: `A pipeline with label ${label} already exists.`, category: 'CONFLICT' }),
        );
      }
      const now = ctx.portal.now();
      const stages = stagesOf(ctx, type, body['stages'], now);
      if (typeof stages === 'string') return sendHubSpotError(reply, 400, validationBody(stages));
      const pipeline: Pipeline = {
        id: ctx.portal.pipelines.allocateId(),
        label,
        displayOrder: body['displayOrder'],
        archived: false,
        createdAt: now,
        updatedAt: now,
        stages,
      };
      return reply.code(201).send(ctx.portal.pipelines.put(type.objectTypeId, pipeline));
    },
  );

  app.patch<{ Params: PipelineParams; Body: unknown }>(
    `${PREFIX}/:objectType/:pipelineId`,
    { config: { kind: 'pipelines.update' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const p = ctx.portal.pipelines.get(type.objectTypeId, req.params.pipelineId);
      if (p === undefined) return notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`);
      const body = isRecord(req.body) ? req.body : {};
      if (typeof body['label'] === 'string' && body['label'] !== '') p.label = body['label'];
      if (typeof body['displayOrder'] === 'number') p.displayOrder = body['displayOrder'];
      if (body['archived'] === false) p.archived = false;
      p.updatedAt = ctx.portal.now();
      return ctx.portal.pipelines.put(type.objectTypeId, p);
    },
  );

  app.post<{ Params: PipelineParams; Body: unknown }>(
    `${PREFIX}/:objectType/:pipelineId/stages`,
    { config: { kind: 'pipelines.stages.create' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const p = ctx.portal.pipelines.get(type.objectTypeId, req.params.pipelineId);
      if (p === undefined) return notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`);
      const stage = stageOf(ctx, type, req.body, ctx.portal.now());
      if (typeof stage === 'string') return sendHubSpotError(reply, 400, validationBody(stage));
      p.stages.push(stage);
      p.updatedAt = stage.createdAt;
      ctx.portal.pipelines.put(type.objectTypeId, p);
      return reply.code(201).send(stage);
    },
  );

  app.get<{ Params: TypeParams }>(
    `${PREFIX}/:objectType`,
    { config: { kind: 'pipelines.list' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      return { results: ctx.portal.pipelines.list(type.objectTypeId) };
    },
  );

  app.get<{ Params: PipelineParams }>(
    `${PREFIX}/:objectType/:pipelineId`,
    { config: { kind: 'pipelines.get' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const p = ctx.portal.pipelines.get(type.objectTypeId, req.params.pipelineId);
      return p ?? notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`);
    },
  );

  app.get<{ Params: PipelineParams }>(
    `${PREFIX}/:objectType/:pipelineId/stages`,
    { config: { kind: 'pipelines.stages.list' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const p = ctx.portal.pipelines.get(type.objectTypeId, req.params.pipelineId);
      if (p === undefined) return notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`);
      return { results: p.stages.filter((s) => !s.archived).sort((a, b) => a.displayOrder - b.displayOrder) };
    },
  );

  app.get<{ Params: StageParams }>(
    `${PREFIX}/:objectType/:pipelineId/stages/:stageId`,
    { config: { kind: 'pipelines.stages.get' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const p = ctx.portal.pipelines.get(type.objectTypeId, req.params.pipelineId);
      if (p === undefined) return notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`);
      const stage = p.stages.find((s) => s.id === req.params.stageId);
      return stage ?? notFound(reply, `Unable to find stage ${req.params.stageId} in pipeline ${p.id}`);
    },
  );
}
