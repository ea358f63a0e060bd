import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { sendHubSpotError, validationBody } from '../errors.ts';
import type { PipelineStage } from '../model/types.ts';
import { isRecord } from '../objects/http.ts';
import { notFound, pipelineType } from './index.ts';
import { stageOf, stagesOf } from './stage-input.ts';

interface PipelineParams {
  objectType: string;
  pipelineId: string;
}
interface StageParams extends PipelineParams {
  stageId: string;
}

const PREFIX = '/crm/v3/pipelines/:objectType/:pipelineId';

/** The pipeline a path names, or undefined after HubSpot's 400 / 404. */
function pipelineOrReply(
  ctx: HubSpotContext,
  params: PipelineParams,
  reply: Parameters<typeof pipelineType>[2],
) {
  const type = pipelineType(ctx, params.objectType, reply);
  if (type === undefined) return undefined;
  const pipeline = ctx.portal.pipelines.get(type.objectTypeId, params.pipelineId);
  if (pipeline === undefined) return void notFound(reply, `Unable to find pipeline ${params.pipelineId}`);
  return { type, pipeline };
}

/** A stage patch (`PipelineStagePatchInput`: label, displayOrder, metadata merged, archived). */
function patchStage(stage: PipelineStage, body: Record<string, unknown>, now: string): PipelineStage {
  const next = { ...stage, updatedAt: now };
  if (typeof body['label'] === 'string' && body['label'] !== '') next.label = body['label'];
  if (typeof body['displayOrder'] === 'number') next.displayOrder = body['displayOrder'];
  if (isRecord(body['metadata'])) {
    const meta = Object.entries(body['metadata']).map(([k, v]) => [k, String(v)]);
    next.metadata = { ...stage.metadata, ...Object.fromEntries(meta) };
  }
  if (typeof body['archived'] === 'boolean') next.archived = body['archived'];
  return next;
}

/**
 * Pipelines v3 writes beyond create and patch: replace a pipeline with its stages (PUT, 200),
 * delete it (204), and replace, update or delete one stage.
 * https://developers.hubspot.com/docs/api-reference/latest/crm/pipelines/guide
 */
export function registerPipelineWriteRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  app.put<{ Params: PipelineParams; Body: unknown }>(
    PREFIX,
    { config: { kind: 'pipelines.replace' } },
    async (req, reply) => {
      const found = pipelineOrReply(ctx, req.params, reply);
      if (found === undefined) return reply;
      const body = isRecord(req.body) ? req.body : {};
      const { label, displayOrder, stages: rawStages } = body;
      if (
        typeof label !== 'string' ||
        label === '' ||
        typeof displayOrder !== 'number' ||
        !Array.isArray(rawStages)
      ) {
        const message =
          'Invalid input JSON on line 1, column 1: Cannot build PipelineReplaceInput, some of required attributes are not set [displayOrder, label, stages]';
        return sendHubSpotError(reply, 400, validationBody(message));
      }
      const now = ctx.portal.now();
      const stages = stagesOf(ctx, found.type, rawStages, now);
      if (typeof stages === 'string') return sendHubSpotError(reply, 400, validationBody(stages));
      const pipeline = { ...found.pipeline, label, displayOrder, stages, updatedAt: now };
      return ctx.portal.pipelines.put(found.type.objectTypeId, pipeline);
    },
  );

  app.delete<{ Params: PipelineParams }>(
    PREFIX,
    { config: { kind: 'pipelines.archive' } },
    async (req, reply) => {
      const found = pipelineOrReply(ctx, req.params, reply);
      if (found === undefined) return reply;
      ctx.portal.pipelines.remove(found.type.objectTypeId, found.pipeline.id);
      return reply.code(204).send();
    },
  );
  registerStageWrites(app, ctx);
}

/** One stage: replace (PUT), update (PATCH, metadata merged) and delete. */
function registerStageWrites(app: FastifyInstance, ctx: HubSpotContext): void {
  const stageRoute = `${PREFIX}/stages/:stageId`;
  const stageWrite = (kind: string, replace: boolean) =>
    app.route<{ Params: StageParams; Body: unknown }>({
      method: replace ? 'PUT' : 'PATCH',
      url: stageRoute,
      config: { kind },
      handler: async (req, reply) => {
        const found = pipelineOrReply(ctx, req.params, reply);
        if (found === undefined) return reply;
        const { type, pipeline } = found;
        const index = pipeline.stages.findIndex((s) => s.id === req.params.stageId);
        const current = pipeline.stages[index];
        if (current === undefined)
          return notFound(reply, `Unable to find stage ${req.params.stageId} in pipeline ${pipeline.id}`);
        const body = isRecord(req.body) ? req.body : {};
        const now = ctx.portal.now();
        const patched = patchStage(current, body, now);
        const next = stageOf(ctx, type, { ...(replace ? body : patched), stageId: current.id }, now);
        if (typeof next === 'string') return sendHubSpotError(reply, 400, validationBody(next));
        const stage = { ...next, createdAt: current.createdAt, archived: replace ? false : patched.archived };
        pipeline.stages[index] = stage;
        ctx.portal.pipelines.put(type.objectTypeId, { ...pipeline, updatedAt: now });
        return stage;
      },
    });
  stageWrite('pipelines.stages.replace', true);
  stageWrite('pipelines.stages.update', false);

  app.delete<{ Params: StageParams }>(
    stageRoute,
    { config: { kind: 'pipelines.stages.archive' } },
    async (req, reply) => {
      const found = pipelineOrReply(ctx, req.params, reply);
      if (found === undefined) return reply;
      const { type, pipeline } = found;
      const stages = pipeline.stages.filter((s) => s.id !== req.params.stageId);
      if (stages.length === pipeline.stages.length)
        return notFound(reply, `Unable to find stage ${req.params.stageId} in pipeline ${pipeline.id}`);
      ctx.portal.pipelines.put(type.objectTypeId, { ...pipeline, stages, updatedAt: ctx.portal.now() });
      return reply.code(204).send();
    },
  );
}
