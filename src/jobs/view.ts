import { randomUUID } from 'node:crypto';
import type { JobRow } from '../store/types.ts';

/** A new job's id: `job_` and 32 hex digits. */
export function newJobId(): string {
  return `job_${randomUUID().replaceAll('-', '')}`;
}

/** A job as the API shows it (`GET /v1/jobs/{id}`); `error` is the error answer of a job that failed as a whole. */
export function jobView(job: JobRow) {
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
