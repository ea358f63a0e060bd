import { limitsOf } from '../../limits/state.ts';
import type { BulkContext } from '../context.ts';
import { mapColumns, parseCsv, rowToRecord } from '../csv.ts';
import { applyBulk } from '../dml.ts';
import { LOCKED } from '../v2/process.ts';
import type { Batch, ClassicJob } from './job.ts';

/** Bulk API 1.0 batch limit: 10 000 records. */
export const MAX_BATCH_RECORDS = 10_000;

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * Processes a job's queued batches one after another (results keep request order: one result
 * per request row, at the same position, which is what clients such as jsforce rely on).
 */
export class ClassicProcessor {
  #running = new Set<string>();

  private readonly ctx: BulkContext;
  constructor(ctx: BulkContext) {
    this.ctx = ctx;
  }

  kick(job: ClassicJob): void {
    if (this.#running.has(job.id)) return;
    this.#running.add(job.id);
    void this.#drain(job).finally(() => this.#running.delete(job.id));
  }

  async #drain(job: ClassicJob): Promise<void> {
    await yieldToLoop();
    for (;;) {
      const batch = job.batches.find((b) => b.state === 'Queued');
      if (batch === undefined || job.state === 'Aborted') return;
      await this.#run(job, batch);
    }
  }

  async #run(job: ClassicJob, batch: Batch): Promise<void> {
    const started = Date.now();
    const touch = (state: Batch['state'], message: string | null = null) => {
      batch.state = state;
      batch.stateMessage = message;
      batch.systemModstamp = Date.now();
      batch.totalProcessingTime = batch.systemModstamp - started;
    };
    touch('InProgress');
    const meta = this.ctx.org.schema.get(job.object);
    if (meta === undefined) return touch('Failed', `InvalidBatch : Unable to find object: ${job.object}`);
    let records: Record<string, unknown>[];
    if (typeof batch.body === 'string') {
      let parsed: ReturnType<typeof parseCsv>;
      try {
        parsed = parseCsv(batch.body, 'auto');
      } catch (e) {
        return touch('Failed', `InvalidBatch : Failed to parse CSV. ${(e as Error).message}`);
      }
      const mapped = mapColumns(
        meta,
        parsed.header.map((h) => h.replace(/\r$/, '')),
      );
      if ('unknown' in mapped)
        return touch('Failed', `InvalidBatch : Field name not found : ${mapped.unknown}`);
      records = parsed.rows.map((r) =>
        rowToRecord(
          meta,
          mapped.columns,
          r.map((v) => v.replace(/\r$/, '')),
        ),
      );
    } else {
      records = batch.body.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null);
    }
    if (records.length > MAX_BATCH_RECORDS) {
      return touch(
        'Failed',
        `InvalidBatch : Exceeded number of records : ${records.length}. Number of records should be less than or equal to ${MAX_BATCH_RECORDS}`,
      );
    }
    limitsOf(this.ctx).consumeBulkBatch();
    await this.ctx.realism.callDelay();
    await this.ctx.realism.recordDelay(records.length);
    const isCsv = typeof batch.body === 'string';
    const userId = job.createdById;
    const results = batch.locked
      ? records.map(() => LOCKED)
      : applyBulk(this.ctx.org, meta.name, job.operation, job.externalIdFieldName, records, userId, isCsv);
    batch.results = results.map((r, i) => {
      const inputId = job.operation === 'insert' ? null : idOf(records[i]);
      return {
        id: r.success ? (r.id ?? inputId) : inputId,
        success: r.success,
        created: r.success ? (r.created ?? job.operation === 'insert') : false,
        errors: r.errors,
      };
    });
    batch.numberRecordsFailed = batch.results.filter((r) => !r.success).length;
    touch('Completed');
  }
}

function idOf(rec: Record<string, unknown> | undefined): string | null {
  if (rec === undefined) return null;
  for (const [k, v] of Object.entries(rec))
    if (k.toLowerCase() === 'id' && typeof v === 'string' && v !== '') return v;
  return null;
}
