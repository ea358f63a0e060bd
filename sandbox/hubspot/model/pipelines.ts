import type { WriteListener } from './audit-log.ts';
import type { Pipeline } from './types.ts';

/** One change of a pipeline or stage (`PublicAuditInfo` without `portalId` and `fromUserId`, added when answered). */
export interface PipelineAudit {
  identifier: string;
  action: 'CREATE' | 'UPDATE' | 'DELETE';
  timestamp: string;
  rawObject: Record<string, unknown>;
}

const auditKey = (objectTypeId: string, pipelineId: string, stageId?: string) =>
  [objectTypeId, pipelineId, ...(stageId === undefined ? [] : [stageId])].join('\u0000');

/** Pipelines with their stages, per object type id (deals `0-3`, tickets `0-5`). */
export class PipelineStore {
  #byType = new Map<string, Map<string, Pipeline>>();
  /** New pipelines and stages get numeric ids from here up, as HubSpot's own do. */
  #nextId = 90_000_000;
  /** Told of each pipeline created, changed (its stages too) or removed once the portal is seeded. */
  onWrite: WriteListener | undefined;
  /** Change history per pipeline and per stage, oldest first (the audit endpoints answer it newest first). */
  #audits = new Map<string, PipelineAudit[]>();
  #nextAuditId = 1;
  readonly #now: () => string;

  constructor(now: () => string = () => new Date().toISOString()) {
    this.#now = now;
  }

  /** A fresh pipeline or stage id. */
  allocateId(): string {
    this.#nextId += 1;
    return String(this.#nextId);
  }

  #highestId(): number {
    let highest = 90_000_000;
    for (const table of this.#byType.values()) {
      for (const pipeline of table.values()) {
        for (const id of [pipeline.id, ...pipeline.stages.map((st) => st.id)]) {
          const n = Number(id);
          if (Number.isInteger(n) && n > highest) highest = n;
        }
      }
    }
    return highest;
  }

  #table(objectTypeId: string): Map<string, Pipeline> {
    let t = this.#byType.get(objectTypeId);
    if (t === undefined) {
      t = new Map();
      this.#byType.set(objectTypeId, t);
    }
    return t;
  }

  /** Pipelines of a type in display order; archived ones only when `archived: true`. */
  list(objectTypeId: string, options: { archived?: boolean } = {}): Pipeline[] {
    const want = options.archived ?? false;
    return [...this.#table(objectTypeId).values()]
      .filter((p) => p.archived === want)
      .sort((a, b) => a.displayOrder - b.displayOrder)
      .map((p) => structuredClone(p));
  }

  get(objectTypeId: string, pipelineId: string): Pipeline | undefined {
    const p = this.#table(objectTypeId).get(pipelineId);
    return p === undefined ? undefined : structuredClone(p);
  }

  /** Creates or replaces a pipeline (stages included). */
  put(objectTypeId: string, pipeline: Pipeline): Pipeline {
    const before = this.#table(objectTypeId).get(pipeline.id);
    const action = before === undefined ? 'CREATE' : 'UPDATE';
    this.#table(objectTypeId).set(pipeline.id, structuredClone(pipeline));
    this.#audit(auditKey(objectTypeId, pipeline.id), action, pipeline.updatedAt, pipeline);
    for (const stage of pipeline.stages) {
      const old = before?.stages.find((s) => s.id === stage.id);
      if (old === undefined || JSON.stringify(old) !== JSON.stringify(stage))
        this.#audit(
          auditKey(objectTypeId, pipeline.id, stage.id),
          old === undefined ? 'CREATE' : 'UPDATE',
          stage.updatedAt,
          stage,
        );
    }
    for (const old of before?.stages ?? []) {
      if (!pipeline.stages.some((s) => s.id === old.id))
        this.#audit(auditKey(objectTypeId, pipeline.id, old.id), 'DELETE', pipeline.updatedAt, old);
    }
    this.onWrite?.({ action, objectTypeId, targetObjectId: pipeline.label });
    return structuredClone(pipeline);
  }

  remove(objectTypeId: string, pipelineId: string): boolean {
    const gone = this.#table(objectTypeId).get(pipelineId);
    const label = gone?.label;
    const removed = this.#table(objectTypeId).delete(pipelineId);
    if (gone !== undefined) this.#audit(auditKey(objectTypeId, pipelineId), 'DELETE', this.#now(), gone);
    if (removed) this.onWrite?.({ action: 'DELETE', objectTypeId, targetObjectId: label ?? pipelineId });
    return removed;
  }

  /** Types that have pipelines. */
  types(): string[] {
    return [...this.#byType.keys()];
  }

  /** True when `stageId` is a stage of `pipelineId` (any pipeline when `pipelineId` is undefined). */
  hasStage(objectTypeId: string, stageId: string, pipelineId?: string): boolean {
    for (const p of this.#table(objectTypeId).values()) {
      if (pipelineId !== undefined && p.id !== pipelineId) continue;
      if (p.stages.some((s) => s.id === stageId)) return true;
    }
    return false;
  }

  /** Changes of a pipeline (or of one of its stages), newest first; undefined when there were none. */
  audits(objectTypeId: string, pipelineId: string, stageId?: string): PipelineAudit[] | undefined {
    const list = this.#audits.get(auditKey(objectTypeId, pipelineId, stageId));
    return list === undefined ? undefined : structuredClone(list).reverse();
  }

  #audit(key: string, action: PipelineAudit['action'], timestamp: string, raw: object): void {
    const list = this.#audits.get(key) ?? [];
    list.push({
      identifier: String(this.#nextAuditId),
      action,
      timestamp,
      rawObject: structuredClone({ ...raw }),
    });
    this.#nextAuditId += 1;
    this.#audits.set(key, list);
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return {
      byType: this.#byType,
      nextId: this.#nextId,
      audits: this.#audits,
      nextAuditId: this.#nextAuditId,
    };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<PipelineStore['exportState']>;
    this.#byType = saved.byType;
    // Files written before the counter was kept: continue above every id in use.
    this.#nextId = saved.nextId ?? this.#highestId();
    // Files written before change histories were kept: none to restore.
    this.#audits = saved.audits ?? new Map();
    this.#nextAuditId = saved.nextAuditId ?? 1;
  }
}
