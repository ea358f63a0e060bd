import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import type { PipelineAudit } from '../model/pipelines.ts';
import { notFound, pipelineType } from './index.ts';

/**
 * A pipeline's and a stage's change history (`CollectionResponsePublicAuditInfoNoPaging`), newest
 * first: every create, update and delete the sandbox saw, made by the API user.
 */
export function registerPipelineAuditRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  const answer = (list: PipelineAudit[]) => ({
    results: list.map((a) => ({
      ...a,
      portalId: ctx.portal.portalId,
      fromUserId: ctx.portal.apiUser().userId,
    })),
  });
  app.get<{ Params: { objectType: string; pipelineId: string } }>(
    '/crm/v3/pipelines/:objectType/:pipelineId/audit',
    { config: { kind: 'pipelines.audit' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const list = ctx.portal.pipelines.audits(type.objectTypeId, req.params.pipelineId);
      return list === undefined
        ? notFound(reply, `Unable to find pipeline ${req.params.pipelineId}`)
        : answer(list);
    },
  );
  app.get<{ Params: { objectType: string; pipelineId: string; stageId: string } }>(
    '/crm/v3/pipelines/:objectType/:pipelineId/stages/:stageId/audit',
    { config: { kind: 'pipelines.stages.audit' } },
    async (req, reply) => {
      const type = pipelineType(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const { pipelineId, stageId } = req.params;
      const list = ctx.portal.pipelines.audits(type.objectTypeId, pipelineId, stageId);
      return list === undefined
        ? notFound(reply, `Unable to find stage ${stageId} in pipeline ${pipelineId}`)
        : answer(list);
    },
  );
}
