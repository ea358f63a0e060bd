import { createRng } from '../../../shared/index.ts';
import { limitsOf } from '../../limits/state.ts';
import type { SaveResult } from '../../org/types.ts';
import type { BulkContext } from '../context.ts';
import { lineEndingError, mapColumns, parseCsv, rowToRecord } from '../csv.ts';
import { applyBulk, formatBulkError } from '../dml.ts';
import type { IngestJob } from './job.ts';

/** Salesforce splits Bulk 2.0 job data into internal batches of 10 000 records. */
export const INTERNAL_BATCH_SIZE = 10_000;
/** Rows handed to the kernel at once; between chunks the event loop serves other requests (polls). */
const CHUNK = 2_000;

/** A row's answer when an injected `lock` fault hit the job (Salesforce's record-lock contention). */
export const LOCKED: SaveResult = {
  success: false,
  errors: [
    {
      statusCode: 'UNABLE_TO_LOCK_ROW',
      message: 'unable to obtain exclusive access to this record or 1 records',
      fields: [],
    },
  ],
};

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * Runs a closed job: parse, check the header, then internal batches one after another, each
 * taking the configured latency (`latencyMs` per batch, `perRecordMs` per record). Stops between
 * chunks when the job was aborted; rows not reached stay in `unprocessedrecords`.
 *
 * Order: Salesforce documents no order for result files. Here each file lists rows in upload
 * order (batches run in sequence and keep their rows' order) unless `bulkResultOrder` is
 * `shuffled`; clients must correlate rows by a key column, never by position.
 */
export async function processIngestJob(ctx: BulkContext, job: IngestJob): Promise<void> {
  await yieldToLoop();
  if (job.state !== 'UploadComplete') return;
  job.setState('InProgress');
  const started = Date.now();
  try {
    await run(ctx, job);
  } catch (e) {
    job.errorMessage = 'InternalServerError : An unexpected error occurred while processing the job';
    job.setState('Failed');
    throw e;
  } finally {
    job.totalProcessingTime = Date.now() - started;
  }
}

async function run(ctx: BulkContext, job: IngestJob): Promise<void> {
  const meta = ctx.org.schema.get(job.object);
  if (meta === undefined) return failJob(job, `InvalidJob : Unable to find object: ${job.object}`);
  const upload = job.uploads[0] ?? '';
  if (upload.trim() === '') {
    // An empty upload: no header, no rows, nothing to do (see the upload route).
    job.uploads = [];
    job.setState('JobComplete');
    return;
  }
  const lineEnding = lineEndingError(upload, job.format.lineEnding);
  if (lineEnding !== null) {
    // Nothing is processed: every row of the file is in unprocessedrecords.
    try {
      const all = parseCsv(upload, job.format, true);
      job.header = all.header;
      job.rows = all.rows;
    } catch {
      // Not even readable as CSV: no rows to list.
    }
    job.uploads = [];
    return failJob(job, lineEnding);
  }
  let parsed: ReturnType<typeof parseCsv>;
  try {
    parsed = parseCsv(upload, job.format);
  } catch (e) {
    return failJob(job, `ClientInputError : ${(e as Error).message}`);
  }
  job.header = parsed.header;
  job.rows = parsed.rows;
  job.uploads = [];
  const mapped = mapColumns(meta, job.header);
  if ('unknown' in mapped) return failJob(job, `InvalidBatch : Field name not found : ${mapped.unknown}`);

  const limits = limitsOf(ctx);
  for (let start = 0; start < job.rows.length; start += INTERNAL_BATCH_SIZE) {
    const end = Math.min(start + INTERNAL_BATCH_SIZE, job.rows.length);
    if (limits.bulkBatches >= limits.dailyBulkApiBatches) {
      // Rows not reached stay unprocessed, as when Salesforce stops a job at the batch allocation.
      return failJob(
        job,
        `ExceededQuota : The daily allocation of ${limits.dailyBulkApiBatches} Bulk API batches is used up`,
      );
    }
    limits.consumeBulkBatch();
    await ctx.realism.callDelay();
    for (let c = start; c < end; c += CHUNK) {
      // Per chunk, so numberRecordsProcessed moves while a large job runs, as Salesforce's does.
      await ctx.realism.recordDelay(Math.min(CHUNK, end - c));
      if (job.state !== 'InProgress') return;
      const rows = job.rows.slice(c, Math.min(c + CHUNK, end));
      const records = rows.map((r) => rowToRecord(meta, mapped.columns, r));
      const results = job.lockRows
        ? records.map(() => LOCKED)
        : applyBulk(ctx.org, meta.name, job.operation, job.externalIdFieldName, records, job.createdById);
      results.forEach((res, k) => {
        const row = c + k;
        job.processedRows.add(row);
        const inputId = job.operation === 'insert' ? '' : idCell(job, row);
        if (res.success) {
          job.results.push({
            row,
            id: res.id ?? inputId,
            created: res.created ?? job.operation === 'insert',
            error: null,
          });
        } else {
          job.numberRecordsFailed += 1;
          // sf__Id of a failed row: empty for inserts, the row's Id for updates and deletes (API 53.0+).
          job.results.push({ row, id: inputId, created: false, error: formatBulkError(res.errors) });
        }
      });
      await yieldToLoop();
    }
  }
  if (job.state === 'InProgress') job.setState('JobComplete');
}

function idCell(job: IngestJob, row: number): string {
  const i = job.header.findIndex((h) => h.toLowerCase() === 'id');
  return i < 0 ? '' : (job.rows[row]?.[i] ?? '');
}

function failJob(job: IngestJob, message: string): void {
  job.errorMessage = message;
  job.setState('Failed');
}

/** A seeded permutation of a job's rows (row → rank) for `bulkResultOrder: 'shuffled'`. */
export function shuffledOrder(ctx: BulkContext, job: IngestJob): number[] | null {
  if (ctx.options.bulkResultOrder !== 'shuffled') return null;
  let seed = ctx.realism.config.seed;
  for (const ch of job.id) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
  const rng = createRng(seed);
  const ranks = job.rows.map((_r, i) => i);
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = ranks[i] as number;
    ranks[i] = ranks[j] as number;
    ranks[j] = t;
  }
  return ranks;
}
