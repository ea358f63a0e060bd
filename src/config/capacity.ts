// How much work the service takes on: the per-token rate limit, parallel CRM calls per connection,
// the largest JSON body and the deadlines of calls to the CRMs. Parsed with the rest of the
// configuration; every bad value is reported together (ConfigProblems).
import { ConfigProblems } from './error.ts';
import { wholeNumber } from './read.ts';

type Env = Record<string, string | undefined>;

export interface CapacityLimits {
  /** Per API token: a token bucket refilled at `perSecond`, holding `burst`; null: no limit. */
  rateLimit: { perSecond: number; burst: number } | null;
  /** Parallel CRM calls per connection across all requests (`CRM_PROXY_CONNECTION_CONCURRENCY`). */
  connectionConcurrency: number;
  /** Largest JSON request body in bytes (`CRM_PROXY_BODY_LIMIT_BYTES`). */
  bodyLimitBytes: number;
  /** Longest silence while waiting on a CRM's answer, per attempt (`CRM_PROXY_CRM_TIMEOUT_MS`). */
  crmTimeoutMs: number;
  /** Longest wait for a TCP/TLS connection to a CRM (`CRM_PROXY_CRM_CONNECT_TIMEOUT_MS`). */
  crmConnectTimeoutMs: number;
  /**
   * No pass-through body is copied for a replay while the CRM accepted the connection's access
   * token less than this long ago (`CRM_PROXY_REPLAY_SKIP_WINDOW_MS`); 0: always copy.
   */
  replaySkipWindowMs: number;
  /**
   * With a shared state (Redis), a CRM call's place in the connection's cap is leased for this long
   * and renewed while the call runs: a killed instance's places are free again this long after
   * their last renewal (`CRM_PROXY_PLACE_LEASE_MS`).
   */
  placeLeaseMs: number;
}

/**
 * Defaults. 200 requests/s with bursts of 2000 per token: a script that fans out (a refresh storm
 * of 1,000 parallel calls) fits the burst, and one runaway client cannot drain the CRM account's
 * daily API allowance. 16 parallel calls per connection stay under Salesforce's 25 concurrent
 * long-running requests. 8 MiB holds 10,000 records of ~800 bytes (the reasoning is in app.ts).
 * 60 s per CRM attempt covers a large Bulk API result page; 10 s to connect covers a slow TLS setup.
 * A token the CRM accepted within the last 60 s is not expiring: a 401 on it is a revoked session,
 * which a replay rarely saves, so the copy is not worth its CPU. A place lease of 10 s frees a
 * killed instance's places soon, and its renewal (a third of it) costs one Redis call per 3 s per call.
 */
export const DEFAULT_CAPACITY: CapacityLimits = {
  rateLimit: { perSecond: 200, burst: 2000 },
  connectionConcurrency: 16,
  bodyLimitBytes: 8 * 1024 * 1024,
  crmTimeoutMs: 60_000,
  crmConnectTimeoutMs: 10_000,
  replaySkipWindowMs: 60_000,
  placeLeaseMs: 10_000,
};

export function parseCapacity(env: Env): CapacityLimits {
  const d = DEFAULT_CAPACITY;
  const p = new ConfigProblems();
  const defaultRate = d.rateLimit ?? { perSecond: 200, burst: 2000 };
  // 0 turns the limit off (a service behind a gateway that limits already).
  const perSecond = p.take(
    () =>
      wholeNumber(
        env,
        'CRM_PROXY_RATE_LIMIT_PER_SECOND',
        defaultRate.perSecond,
        0,
        1_000_000,
        'requests per second',
      ),
    defaultRate.perSecond,
  );
  const burst = p.take(
    () =>
      wholeNumber(
        env,
        'CRM_PROXY_RATE_LIMIT_BURST',
        Math.max(defaultRate.burst, perSecond),
        1,
        10_000_000,
        'requests',
      ),
    defaultRate.burst,
  );
  if (perSecond > 0 && burst < perSecond) {
    p.add('CRM_PROXY_RATE_LIMIT_BURST must be at least CRM_PROXY_RATE_LIMIT_PER_SECOND');
  }
  const limits: CapacityLimits = {
    rateLimit: perSecond === 0 ? null : { perSecond, burst },
    connectionConcurrency: p.take(
      () => wholeNumber(env, 'CRM_PROXY_CONNECTION_CONCURRENCY', d.connectionConcurrency, 1, 1000, 'calls'),
      d.connectionConcurrency,
    ),
    bodyLimitBytes: p.take(
      () =>
        wholeNumber(env, 'CRM_PROXY_BODY_LIMIT_BYTES', d.bodyLimitBytes, 1024, 256 * 1024 * 1024, 'bytes'),
      d.bodyLimitBytes,
    ),
    crmTimeoutMs: p.take(
      () => wholeNumber(env, 'CRM_PROXY_CRM_TIMEOUT_MS', d.crmTimeoutMs, 1000, 600_000, 'milliseconds'),
      d.crmTimeoutMs,
    ),
    crmConnectTimeoutMs: p.take(
      () =>
        wholeNumber(
          env,
          'CRM_PROXY_CRM_CONNECT_TIMEOUT_MS',
          d.crmConnectTimeoutMs,
          100,
          120_000,
          'milliseconds',
        ),
      d.crmConnectTimeoutMs,
    ),
    replaySkipWindowMs: p.take(
      () =>
        wholeNumber(
          env,
          'CRM_PROXY_REPLAY_SKIP_WINDOW_MS',
          d.replaySkipWindowMs,
          0,
          3_600_000,
          'milliseconds',
        ),
      d.replaySkipWindowMs,
    ),
    placeLeaseMs: p.take(
      () => wholeNumber(env, 'CRM_PROXY_PLACE_LEASE_MS', d.placeLeaseMs, 100, 600_000, 'milliseconds'),
      d.placeLeaseMs,
    ),
  };
  p.throwIfAny();
  return limits;
}
