import { ConfigError } from './error.ts';

/** Durable writes: how long idempotency keys and finished jobs are kept, and the job lease. */
export interface DurableSettings {
  /** `CRM_PROXY_IDEMPOTENCY_TTL_HOURS` (default 24). */
  idempotencyTtlMs: number;
  /** `CRM_PROXY_JOB_RETENTION_DAYS` (default 7): finished jobs and their results. */
  jobRetentionMs: number;
  /**
   * `CRM_PROXY_JOB_LEASE_MS` (default 30 000): a job whose instance died is resumed by another (or
   * the restarted one) within this long of the death. The lease a running job holds in the store
   * is this less one sweep interval, renewed every third of that.
   */
  jobLeaseMs: number;
  /** `CRM_PROXY_JOB_SWEEP_MS` (default 5 000, under half the lease): how often an instance looks for jobs to resume. */
  jobSweepMs: number;
  /**
   * `CRM_PROXY_JOB_RECORDS_IN_FLIGHT` (default 20 000): records of one connection's jobs that run at
   * once in one instance; later jobs wait their turn (`queued`), their input in the store.
   */
  jobRecordsInFlight: number;
}

const HOUR_MS = 60 * 60 * 1000;

export const DEFAULT_DURABLE: DurableSettings = {
  idempotencyTtlMs: 24 * HOUR_MS,
  jobRetentionMs: 7 * 24 * HOUR_MS,
  jobLeaseMs: 30_000,
  jobSweepMs: 5_000,
  jobRecordsInFlight: 20_000,
};

function whole(
  env: Record<string, string | undefined>,
  name: string,
  min: number,
  max: number,
  unit: string,
) {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number of ${unit} from ${min} to ${max}`);
  }
  return n;
}

export function parseDurable(env: Record<string, string | undefined>): DurableSettings {
  const hours = whole(env, 'CRM_PROXY_IDEMPOTENCY_TTL_HOURS', 1, 24 * 30, 'hours');
  const days = whole(env, 'CRM_PROXY_JOB_RETENTION_DAYS', 1, 365, 'days');
  const lease = whole(env, 'CRM_PROXY_JOB_LEASE_MS', 500, 600_000, 'milliseconds');
  const sweep = whole(env, 'CRM_PROXY_JOB_SWEEP_MS', 50, 300_000, 'milliseconds');
  const inFlight = whole(env, 'CRM_PROXY_JOB_RECORDS_IN_FLIGHT', 1, 10_000_000, 'records');
  const jobLeaseMs = lease ?? DEFAULT_DURABLE.jobLeaseMs;
  const jobSweepMs = sweep ?? Math.min(DEFAULT_DURABLE.jobSweepMs, Math.floor(jobLeaseMs / 3));
  if (jobSweepMs * 2 >= jobLeaseMs) {
    throw new ConfigError(
      `CRM_PROXY_JOB_SWEEP_MS (${jobSweepMs}) must be under half of CRM_PROXY_JOB_LEASE_MS (${jobLeaseMs}): a job is resumed within the lease only if the sweep runs more often; lower the sweep or raise the lease`,
    );
  }
  return {
    idempotencyTtlMs: hours === undefined ? DEFAULT_DURABLE.idempotencyTtlMs : hours * HOUR_MS,
    jobRetentionMs: days === undefined ? DEFAULT_DURABLE.jobRetentionMs : days * 24 * HOUR_MS,
    jobLeaseMs,
    jobSweepMs,
    jobRecordsInFlight: inFlight ?? DEFAULT_DURABLE.jobRecordsInFlight,
  };
}
