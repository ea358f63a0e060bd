import type { HubSpotContext } from '../context.ts';
import type { ObjectTypeDefinition, PipelineStage } from '../model/types.ts';
import { isRecord } from '../objects/http.ts';

/**
 * A stage input checked the way HubSpot documents it: `label`, `displayOrder` and `metadata`
 * required; deal stages need `probability` (0 to 1), ticket stages `ticketState` (OPEN or CLOSED).
 */
export function stageOf(
  ctx: HubSpotContext,
  type: ObjectTypeDefinition,
  raw: unknown,
  now: string,
): PipelineStage | string {
  if (!isRecord(raw) || typeof raw['label'] !== 'string' || raw['label'] === '')
    return 'each stage needs a label';
  if (typeof raw['displayOrder'] !== 'number') return `stage ${raw['label']} needs a displayOrder`;
  const metadata = isRecord(raw['metadata']) ? raw['metadata'] : undefined;
  if (metadata === undefined) return `stage ${raw['label']} needs metadata`;
  const meta = Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)]));
  if (type.objectTypeId === '0-3') {
    const p = Number(meta['probability']);
    if (meta['probability'] === undefined || !(p >= 0 && p <= 1)) {
      return `deal stage ${raw['label']} needs metadata.probability between 0.0 and 1.0`;
    }
  }
  if (type.objectTypeId === '0-5' && !['OPEN', 'CLOSED'].includes(String(meta['ticketState']))) {
    return `ticket stage ${raw['label']} needs metadata.ticketState OPEN or CLOSED`;
  }
  return {
    // A replace may keep a stage's id (`PipelineStageInput.stageId`).
    id:
      typeof raw['stageId'] === 'string' && raw['stageId'] !== ''
        ? raw['stageId']
        : ctx.portal.pipelines.allocateId(),
    label: raw['label'],
    displayOrder: raw['displayOrder'],
    metadata: meta,
    archived: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** Every stage of a pipeline input, or the first problem; labels must differ within a pipeline. */
export function stagesOf(
  ctx: HubSpotContext,
  type: ObjectTypeDefinition,
  raw: unknown[],
  now: string,
): PipelineStage[] | string {
  const stages: PipelineStage[] = [];
  for (const item of raw) {
    const stage = stageOf(ctx, type, item, now);
    if (typeof stage === 'string') return stage;
    if (stages.some((s) => s.label === stage.label)) return `stage label ${stage.label} is used twice`;
    stages.push(stage);
  }
  return stages;
}
