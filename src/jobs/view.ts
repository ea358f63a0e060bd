import { randomUUID } from 'node:crypto';
import type { JobRow } from '../store/types.ts';

/** A new job's id: `job_` and 32 hex digits. */
export function newJobId(): string {
  return `job_${randomUUID().replaceAll('-', '')}`;
}

/** A job as the API shows it (`GET /v1/jobs/{id}`). */
export interface JobView {
  id: string;
  state: string;
  operation: string;
  object: string | null;
  interface: string | null;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  crm_job_ids: string[];
  cancel_requested: boolean;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** The error answer when the job failed as a whole (nothing per record). */
  error: Record<string, unknown> | null;
  results_url: string;
}

export function jobView(job: JobRow): JobView {
  const error =
    job.error === null ? null : (JSON.parse(job.error) as { body: { error: Record<string, unknown> } });
  return {
    id: job.id,
    state: job.state,
    operation: job.operation,
    object: job.objectName,
    interface: job.interface,
    counts: { total: job.total, processed: job.processed, succeeded: job.succeeded, failed: job.failed },
    crm_job_ids: job.crmJobIds,
    cancel_requested: job.cancelRequested,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
    updated_at: job.updatedAt,
    error: error?.body.error ?? null,
    results_url: `/v1/jobs/${job.id}/results`,
  };
}
