import type { BulkOperation } from '../dml.ts';

export type JobState = 'Open' | 'Closed' | 'Aborted' | 'Failed';
export type BatchState = 'Queued' | 'InProgress' | 'Completed' | 'Failed' | 'NotProcessed';
export type ContentType = 'CSV' | 'JSON';

/** Result of one batch row, in request order. */
export interface BatchRowResult {
  id: string | null;
  success: boolean;
  created: boolean;
  errors: { statusCode: string; message: string; fields: string[] }[];
}

export interface Batch {
  id: string;
  jobId: string;
  state: BatchState;
  stateMessage: string | null;
  createdDate: number;
  systemModstamp: number;
  /** The request body: CSV text or the parsed JSON array. */
  body: string | unknown[];
  results: BatchRowResult[];
  numberRecordsFailed: number;
  totalProcessingTime: number;
  /** An injected `lock` fault hit the call that added it: every row fails with UNABLE_TO_LOCK_ROW. */
  locked: boolean;
  /** A query job's batch: its one result set (CSV text, or the records for JSON jobs). */
  query?: { resultId: string; csv: string; records: unknown[] };
}

/** `2020-06-25T11:19:01.000Z`: Bulk 1.0 writes UTC dates with `Z`. */
const isoDate = (ms: number) => new Date(ms).toISOString();

export class ClassicJob {
  readonly batches: Batch[] = [];
  state: JobState = 'Open';
  systemModstamp: number;

  readonly id: string;
  readonly operation: BulkOperation;
  readonly object: string;
  readonly externalIdFieldName: string | null;
  readonly contentType: ContentType;
  readonly apiVersion: string;
  readonly createdById: string;
  readonly createdDate: number;
  constructor(
    id: string,
    operation: BulkOperation,
    object: string,
    externalIdFieldName: string | null,
    contentType: ContentType,
    apiVersion: string,
    createdById: string,
    createdDate: number,
  ) {
    this.id = id;
    this.operation = operation;
    this.object = object;
    this.externalIdFieldName = externalIdFieldName;
    this.contentType = contentType;
    this.apiVersion = apiVersion;
    this.createdById = createdById;
    this.createdDate = createdDate;
    this.systemModstamp = createdDate;
  }

  /** JobInfo in Salesforce's element order. */
  info() {
    const count = (s: BatchState) => this.batches.filter((b) => b.state === s).length;
    const done = this.batches.filter((b) => b.state === 'Completed' || b.state === 'Failed');
    return {
      id: this.id,
      operation: this.operation,
      object: this.object,
      createdById: this.createdById,
      createdDate: isoDate(this.createdDate),
      systemModstamp: isoDate(this.systemModstamp),
      state: this.state,
      externalIdFieldName: this.externalIdFieldName ?? undefined,
      concurrencyMode: 'Parallel',
      contentType: this.contentType,
      numberBatchesQueued: count('Queued'),
      numberBatchesInProgress: count('InProgress'),
      numberBatchesCompleted: count('Completed'),
      numberBatchesFailed: count('Failed'),
      numberBatchesTotal: this.batches.length,
      numberRecordsProcessed: done.reduce((n, b) => n + b.results.length, 0),
      numberRetries: 0,
      apiVersion: this.apiVersion,
      numberRecordsFailed: done.reduce((n, b) => n + b.numberRecordsFailed, 0),
      totalProcessingTime: done.reduce((n, b) => n + b.totalProcessingTime, 0),
      apiActiveProcessingTime: done.reduce((n, b) => n + b.totalProcessingTime, 0),
      apexProcessingTime: 0,
    };
  }
}

export function batchInfo(b: Batch) {
  return {
    id: b.id,
    jobId: b.jobId,
    state: b.state,
    stateMessage: b.stateMessage ?? undefined,
    createdDate: isoDate(b.createdDate),
    systemModstamp: isoDate(b.systemModstamp),
    numberRecordsProcessed: b.query?.records.length ?? b.results.length,
    numberRecordsFailed: b.numberRecordsFailed,
    totalProcessingTime: b.totalProcessingTime,
    apiActiveProcessingTime: b.totalProcessingTime,
    apexProcessingTime: 0,
  };
}
