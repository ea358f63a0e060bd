import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONTROL_PREFIX } from '../../shared/index.ts';
import { isSubrequest } from '../context.ts';
import { type LimitsOptions, type LimitsState, limitsOf } from './state.ts';

export interface LimitsContext {
  options: LimitsOptions;
}

/** Data API calls: `/services/data/vXX.X/...`. The version list (`/services/data/`) is free and unmetered. */
const DATA_API = /^\/services\/data\/v\d+\.\d(\/|\?|$)/;

function limitExceeded(reply: FastifyReply, message: string) {
  return reply
    .code(403)
    .header('content-type', 'application/json;charset=UTF-8')
    .send(JSON.stringify([{ message, errorCode: 'REQUEST_LIMIT_EXCEEDED' }]));
}

/**
 * API limits of the org:
 * - a daily request allowance: each data API call uses one; past `dailyApiRequests` every call is
 *   refused with 403 `REQUEST_LIMIT_EXCEEDED` "TotalRequests Limit exceeded." (Salesforce's window
 *   is a rolling 24 h; here it runs from start or `/__sandbox/reset`);
 * - `Sforce-Limit-Info: api-usage=used/max` on every data API answer;
 * - concurrent long-running requests: when `concurrentLongRunningLimit` data API requests have been
 *   in flight for longer than `longRunningThresholdMs`, a new one is refused
 *   ("ConcurrentPerOrgLongTxn Limit exceeded."). In-flight requests are tracked from the moment
 *   the server receives them, so requests held back by injected latency or a `slow` fault count.
 * - `GET /services/data/vXX.X/limits`;
 * - `GET|PUT /__sandbox/limits` (`{"api_requests_used": 95000, "daily_api_requests": 100000}`): read
 *   or set the usage (also what a reset goes back to), to put the org near its limit.
 * Register after the session check, so refused sessions do not use the allowance.
 */
export function registerLimits(
  app: FastifyInstance,
  ctx: LimitsContext & { onReset(fn: () => void): void },
): LimitsState {
  const limits = limitsOf(ctx);
  ctx.onReset(() => limits.reset());

  const entries = new WeakMap<object, { startedAt: number }>();
  app.server.on('request', (req, res) => {
    if (!DATA_API.test(req.url ?? '')) return;
    const entry = { startedAt: Date.now() };
    entries.set(req, entry);
    limits.inFlight.add(entry);
    res.once('close', () => limits.inFlight.delete(entry));
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!DATA_API.test(request.url) || isSubrequest(request)) return;
    if (limits.apiRequests >= limits.dailyApiRequests)
      return limitExceeded(reply, 'TotalRequests Limit exceeded.');
    // Only the other requests in flight count, not this one.
    if (limits.longRunning(Date.now(), entries.get(request.raw)) >= limits.concurrentLongRunningLimit) {
      return limitExceeded(reply, 'ConcurrentPerOrgLongTxn Limit exceeded.');
    }
    limits.apiRequests += 1;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (DATA_API.test(request.url)) {
      reply.header('sforce-limit-info', `api-usage=${limits.apiRequests}/${limits.dailyApiRequests}`);
    }
    return payload;
  });

  app.get(`${CONTROL_PREFIX}/limits`, { config: { uncounted: true } }, async () => controlView(limits));
  app.put(`${CONTROL_PREFIX}/limits`, { config: { uncounted: true } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const whole = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
    const daily = body['daily_api_requests'] ?? limits.dailyApiRequests;
    const used = body['api_requests_used'] ?? limits.apiRequests;
    if (!whole(daily) || (daily as number) < 1 || !whole(used)) {
      return reply.code(400).send({
        message: 'api_requests_used must be a whole number from 0, daily_api_requests one from 1',
      });
    }
    limits.dailyApiRequests = daily as number;
    limits.apiRequests = used as number;
    limits.baselineApiRequests = used as number;
    return controlView(limits);
  });

  for (const path of ['/services/data/:version/limits', '/services/data/:version/limits/']) {
    app.get(path, { config: { kind: 'rest.limits' } }, async () => limitsDocument(limits));
  }
  return limits;
}

const controlView = (l: LimitsState) => ({
  api_requests_used: l.apiRequests,
  daily_api_requests: l.dailyApiRequests,
});

const fixed = (max: number) => ({ Max: max, Remaining: max });

/** A realistic subset of `/limits` (keys are the real limit names; each value `{Max, Remaining}`). */
export function limitsDocument(l: LimitsState) {
  return {
    ActiveScratchOrgs: fixed(3),
    ConcurrentAsyncGetReportInstances: fixed(200),
    ConcurrentSyncReportRuns: fixed(20),
    DailyApiRequests: { Max: l.dailyApiRequests, Remaining: Math.max(0, l.dailyApiRequests - l.apiRequests) },
    DailyAsyncApexExecutions: fixed(250_000),
    DailyBulkApiBatches: {
      Max: l.dailyBulkApiBatches,
      Remaining: Math.max(0, l.dailyBulkApiBatches - l.bulkBatches),
    },
    DailyBulkV2QueryFileStorageMB: fixed(976_562),
    DailyBulkV2QueryJobs: { Max: 10_000, Remaining: Math.max(0, 10_000 - l.bulkV2QueryJobs) },
    DailyDurableStreamingApiEvents: fixed(1_000_000),
    DailyGenericStreamingApiEvents: fixed(10_000),
    DailyStreamingApiEvents: fixed(1_000_000),
    DailyWorkflowEmails: fixed(2_000_000),
    DataStorageMB: fixed(1_024),
    FileStorageMB: fixed(1_024),
    HourlyAsyncReportRuns: fixed(1_200),
    HourlyDashboardRefreshes: fixed(200),
    HourlyPublishedPlatformEvents: fixed(250_000),
    HourlySyncReportRuns: fixed(500),
    HourlyTimeBasedWorkflow: fixed(1_000),
    MassEmail: fixed(5_000),
    SingleEmail: fixed(5_000),
    StreamingApiConcurrentClients: fixed(2_000),
  };
}
