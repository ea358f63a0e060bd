import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import type { ObjectTypeDefinition } from '../model/types.ts';
import { typeOrReply } from '../objects/http.ts';

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

const notFound = (reply: FastifyReply, message: string) =>
  sendHubSpotError(reply, 404, hubspotError({ message, category: 'OBJECT_NOT_FOUND' }));

/** Deals and tickets have pipelines; other types answer HubSpot's 400 for a type without them. */
function pipelineType(
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

/** Pipelines API v3, read side: pipelines with their stages (`Pipeline`, `PipelineStage`). */
export function registerPipelinesRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
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
