import type { WriteListener } from './audit-log.ts';
import type { Pipeline } from './types.ts';

/** Pipelines with their stages, per object type id (deals `0-3`, tickets `0-5`). */
export class PipelineStore {
  #byType = new Map<string, Map<string, Pipeline>>();
  /** New pipelines and stages get numeric ids from here up, as HubSpot's own do. */
  #nextId = 90_000_000;
  /** Told of each pipeline created, changed (its stages too) or removed once the portal is seeded. */
  onWrite: WriteListener | undefined;

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
    const action = this.#table(objectTypeId).has(pipeline.id) ? 'UPDATE' : 'CREATE';
    this.#table(objectTypeId).set(pipeline.id, structuredClone(pipeline));
    this.onWrite?.({ action, objectTypeId, targetObjectId: pipeline.label });
    return structuredClone(pipeline);
  }

  remove(objectTypeId: string, pipelineId: string): boolean {
    const label = this.#table(objectTypeId).get(pipelineId)?.label;
    const removed = this.#table(objectTypeId).delete(pipelineId);
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

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { byType: this.#byType, nextId: this.#nextId };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<PipelineStore['exportState']>;
    this.#byType = saved.byType;
    // Files written before the counter was kept: continue above every id in use.
    this.#nextId = saved.nextId ?? this.#highestId();
  }
}
