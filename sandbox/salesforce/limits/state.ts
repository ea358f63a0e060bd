/** Options of `startSalesforceSandbox` that the limits read (all optional). */
export interface LimitsOptions {
  /**
   * Daily API request allocation (rolling 24 h in Salesforce; here: since start or reset).
   * Default 100 000, an Enterprise org's base allocation; 15 000 is a Developer Edition's.
   */
  dailyApiRequests?: number;
  /**
   * Requests the org has already used today, at start and after a reset (default 0): an org near
   * its limit (`Sforce-Limit-Info: api-usage=95000/100000`) without sending 95 000 requests first.
   */
  apiRequestsUsed?: number;
  /** Bulk API batches per 24 h, shared by Bulk 1.0 batches and Bulk 2.0 internal batches (15 000). */
  dailyBulkApiBatches?: number;
  /** Concurrent requests allowed past the long-running threshold (25 in production orgs, 5 in Developer Edition). */
  concurrentLongRunningLimit?: number;
  /** A request counts as long-running after this many ms (20 000 in Salesforce). */
  longRunningThresholdMs?: number;
}

export interface LimitValue {
  Max: number;
  Remaining: number;
}

/** Counters behind `/limits`, `Sforce-Limit-Info` and the REQUEST_LIMIT_EXCEEDED answers. */
export class LimitsState {
  dailyApiRequests: number;
  /** Usage a reset goes back to (`apiRequestsUsed`, or what `PUT /__sandbox/limits` set). */
  baselineApiRequests: number;
  readonly dailyBulkApiBatches: number;
  readonly concurrentLongRunningLimit: number;
  readonly longRunningThresholdMs: number;
  apiRequests: number;
  bulkBatches = 0;
  bulkV2QueryJobs = 0;
  /** Start times of the data API requests in flight. */
  readonly inFlight = new Set<{ startedAt: number }>();

  constructor(options: LimitsOptions = {}) {
    this.dailyApiRequests = options.dailyApiRequests ?? 100_000;
    this.baselineApiRequests = options.apiRequestsUsed ?? 0;
    this.apiRequests = this.baselineApiRequests;
    this.dailyBulkApiBatches = options.dailyBulkApiBatches ?? 15_000;
    this.concurrentLongRunningLimit = options.concurrentLongRunningLimit ?? 25;
    this.longRunningThresholdMs = options.longRunningThresholdMs ?? 20_000;
  }

  /** Requests in flight for longer than the threshold (Salesforce's "long-running" requests). */
  longRunning(now = Date.now(), except?: { startedAt: number }): number {
    let n = 0;
    for (const r of this.inFlight)
      if (r !== except && now - r.startedAt >= this.longRunningThresholdMs) n += 1;
    return n;
  }

  consumeBulkBatch(): void {
    this.bulkBatches += 1;
  }

  reset(): void {
    this.apiRequests = this.baselineApiRequests;
    this.bulkBatches = 0;
    this.bulkV2QueryJobs = 0;
  }
}

const states = new WeakMap<object, LimitsState>();

/** One limits state per sandbox context, shared by the limits hook and the Bulk processors. */
export function limitsOf(ctx: { options: LimitsOptions }): LimitsState {
  let s = states.get(ctx);
  if (s === undefined) {
    s = new LimitsState(ctx.options);
    states.set(ctx, s);
  }
  return s;
}
