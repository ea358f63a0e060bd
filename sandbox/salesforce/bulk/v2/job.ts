import { sfDateTime } from '../context.ts';
import { type CsvFormat, writeCsv } from '../csv.ts';
import type { BulkOperation } from '../dml.ts';

export type IngestState = 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';

/** Outcome of one processed row, kept with the row's original cells for the result files. */
export interface RowResult {
  row: number;
  id: string;
  created: boolean;
  error: string | null;
}

/** One Bulk API 2.0 ingest job. */
export class IngestJob {
  readonly id: string;
  readonly object: string;
  readonly operation: BulkOperation;
  readonly externalIdFieldName: string | null;
  readonly format: CsvFormat;
  readonly apiVersion: string;
  readonly createdById: string;
  readonly createdDate: number;
  systemModstamp: number;
  state: IngestState = 'Open';
  errorMessage: string | null = null;
  /** Uploaded CSV bodies, parsed when processing starts (as Salesforce does). */
  uploads: string[] = [];
  header: string[] = [];
  rows: string[][] = [];
  results: RowResult[] = [];
  /** Rows a processed batch got to; the rest are unprocessed when the job stops early. */
  processedRows = new Set<number>();
  numberRecordsFailed = 0;
  totalProcessingTime = 0;
  /** An injected `lock` fault hit the close call: every row fails with UNABLE_TO_LOCK_ROW. */
  lockRows = false;

  constructor(init: {
    id: string;
    object: string;
    operation: BulkOperation;
    externalIdFieldName: string | null;
    format: CsvFormat;
    apiVersion: string;
    createdById: string;
    now: number;
  }) {
    this.id = init.id;
    this.object = init.object;
    this.operation = init.operation;
    this.externalIdFieldName = init.externalIdFieldName;
    this.format = init.format;
    this.apiVersion = init.apiVersion;
    this.createdById = init.createdById;
    this.createdDate = init.now;
    this.systemModstamp = init.now;
  }

  setState(state: IngestState): void {
    this.state = state;
    this.systemModstamp = Date.now();
  }

  /** The job info of create/close answers and of the job list. */
  info(version: string) {
    return {
      id: this.id,
      operation: this.operation,
      object: this.object,
      createdById: this.createdById,
      createdDate: sfDateTime(this.createdDate),
      systemModstamp: sfDateTime(this.systemModstamp),
      state: this.state,
      ...(this.externalIdFieldName !== null ? { externalIdFieldName: this.externalIdFieldName } : {}),
      concurrencyMode: 'Parallel',
      contentType: 'CSV',
      apiVersion: Number(this.apiVersion),
      jobType: 'V2Ingest',
      // No leading slash, as Salesforce writes it.
      contentUrl: `services/data/v${version}/jobs/ingest/${this.id}/batches`,
      lineEnding: this.format.lineEnding,
      columnDelimiter: this.format.columnDelimiter,
    };
  }

  /** GET job info: the same plus the counters, and `errorMessage` once failed. */
  fullInfo(version: string) {
    return {
      ...this.info(version),
      numberRecordsProcessed: this.results.length,
      numberRecordsFailed: this.numberRecordsFailed,
      retries: 0,
      totalProcessingTime: this.totalProcessingTime,
      apiActiveProcessingTime: this.totalProcessingTime,
      apexProcessingTime: 0,
      ...(this.errorMessage !== null ? { errorMessage: this.errorMessage } : {}),
    };
  }

  successfulResults(order: number[] | null): string {
    const ok = this.results.filter((r) => r.error === null);
    return writeCsv(
      ['sf__Id', 'sf__Created', ...this.header],
      arrange(ok, order).map((r) => [r.id, String(r.created), ...this.#cells(r.row)]),
      this.format,
    );
  }

  failedResults(order: number[] | null): string {
    const failed = this.results.filter((r) => r.error !== null);
    return writeCsv(
      ['sf__Id', 'sf__Error', ...this.header],
      arrange(failed, order).map((r) => [r.id, r.error ?? '', ...this.#cells(r.row)]),
      this.format,
    );
  }

  /** Rows never attempted: the job failed or was aborted first (or has not run yet). */
  unprocessedRecords(): string {
    const rows = this.rows.filter((_r, i) => !this.processedRows.has(i));
    return writeCsv(
      this.header,
      rows.map((r) => this.header.map((_h, i) => r[i] ?? '')),
      this.format,
    );
  }

  #cells(row: number): string[] {
    const r = this.rows[row] ?? [];
    return this.header.map((_h, i) => r[i] ?? '');
  }
}

/** Results in a given permutation of their row numbers (`order`: row → rank), or as processed. */
function arrange(results: RowResult[], order: number[] | null): RowResult[] {
  if (order === null) return results;
  return [...results].sort((a, b) => (order[a.row] ?? 0) - (order[b.row] ?? 0));
}
