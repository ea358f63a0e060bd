import { createHmac } from 'node:crypto';
import { type Logger, pino } from 'pino';
import type { OperatorService } from './admin/operators.ts';
import type { RequestLog } from './admin/request-log.ts';
import { type AdminService, createOperatorServices } from './admin/service.ts';
import { AuthService } from './auth/service.ts';
import { type Config, DEFAULT_CAPACITY, DEFAULT_DURABLE } from './config/index.ts';
import { ConnectService, type SandboxCrm } from './connect/service.ts';
import { ConnectionService } from './connections/service.ts';
import { TokenManager } from './connections/token-manager.ts';
import { loadKeyring } from './crypto/keyring.ts';
import type { Connection, Provider } from './domain/connection.ts';
import { RateLimiter, type RateLimitOptions } from './http/plugins/rate-limit.ts';
import { IdempotencyService } from './jobs/idempotency.ts';
import { JobRunner } from './jobs/runner.ts';
import { currentCallIds } from './lib/call-context.ts';
import { type Clock, systemClock, withSystemSleep } from './lib/clock.ts';
import { attachDestination, droppedLines, pipeLogDestination } from './lib/log-destination.ts';
import { Metrics } from './lib/metrics.ts';
import { LOG_REDACTION } from './lib/redact.ts';
import { RedisSharedState } from './lib/redis-shared-state.ts';
import { LocalSharedState, type SharedState } from './lib/shared-state.ts';
import { createTracing, type Tracing } from './lib/tracing.ts';
import { ConnectionLimiters, type OperationDeps } from './operations/deps.ts';
import type { OAuthApp, OAuthClient, ProviderModule } from './providers/adapter.ts';
import { HttpClient, type HttpClientOptions } from './providers/client/http-client.ts';
import { BUILT_IN_PROVIDERS } from './providers/index.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { ProxyForwarder } from './proxy/forwarder.ts';
import { openStore } from './store/index.ts';
import type { Store } from './store/types.ts';

export type { OAuthClient } from './providers/adapter.ts';

export interface ContextOverrides {
  logger?: Logger;
  /** Time source of every service object; a clock without `sleep` waits in real time. */
  clock?: Pick<Clock, 'now'> & Partial<Pick<Clock, 'sleep'>>;
  /** The CRMs to speak (default: the built-in ones); tests add their own. */
  providers?: readonly ProviderModule[];
  /** PostgreSQL only: keep the tables in this schema (test isolation). */
  pgSchema?: string;
  /** OAuth clients for sandbox connections (the sandboxes' own client ids), by provider. */
  sandboxOAuthClients?: Readonly<Record<Provider, OAuthClient>>;
  /** Where the sandbox CRMs listen, by provider: the connect flow sends browsers there. */
  sandboxUrls?: Readonly<Record<Provider, string>>;
  http?: Omit<HttpClientOptions, 'clock'>;
  /** Parallel CRM calls per connection, across all requests (default: config, `CRM_PROXY_CONNECTION_CONCURRENCY`). */
  perConnectionConcurrency?: number;
  /** Describe cache TTL (default: the provider's). */
  describeTtlMs?: number;
  /** Writes of at least this many records use the CRM's bulk interface (default: config, else the provider's). */
  bulkThreshold?: number;
  /** Auth lookup cache TTL. */
  authCacheTtlMs?: number;
  /** Largest accepted JSON request body in bytes (default: config, `CRM_PROXY_BODY_LIMIT_BYTES`, 8 MiB). */
  bodyLimit?: number;
  /** Per-token rate limit; null turns it off. Default: config (`CRM_PROXY_RATE_LIMIT_*`, 200/s, bursts of 2000). */
  rateLimit?: RateLimitOptions | null;
}

export interface AppContext {
  config: Config;
  logger: Logger;
  store: Store;
  connections: ConnectionService;
  auth: AuthService;
  tokens: TokenManager;
  registry: ProviderRegistry;
  /** The browser connect flow and connect links. */
  connect: ConnectService;
  client: HttpClient;
  operations: OperationDeps;
  /** Durable jobs; `startService` starts their sweep (resuming interrupted jobs). */
  jobs: JobRunner;
  idempotency: IdempotencyService;
  bodyLimit: number;
  rateLimit: RateLimitOptions | null;
  /** The per-token rate limiter built from `rateLimit`; null when it is off. */
  rateLimiter: RateLimiter | null;
  /** The time source every service object uses. */
  clock: Clock;
  /** Operator accounts, console sessions and operator API keys. */
  operators: OperatorService;
  /** The request log (buffered, written in batches). */
  requestLog: RequestLog;
  /** What the console and the admin API show and do. */
  admin: AdminService;
  /** Prometheus metrics; null unless a metrics port is configured. */
  metrics: Metrics | null;
  /** OpenTelemetry tracing; null unless a collector is configured. */
  tracing: Tracing | null;
  /** What instances share: Redis when `REDIS_URL` is set, else this process alone. */
  shared: SharedState;
  /** The store answers (readiness). */
  isReady(): Promise<boolean>;
  /** Readiness details beyond the store: Redis's state when it is configured (it never makes the instance unready). */
  readinessDetails(): Record<string, string>;
  close(): Promise<void>;
}

/** 10,000 records of ~800 bytes of JSON each; the reasoning is in app.ts. */
export const DEFAULT_BODY_LIMIT = DEFAULT_CAPACITY.bodyLimitBytes;

/** Log lines wait in memory until this many bytes are pending (or the flush timer fires). */
const LOG_BUFFER_BYTES = 4096;
/** Longest a line waits in the buffer when traffic is low. */
const LOG_FLUSH_MS = 250;

/**
 * The service's logger: JSON lines on stdout, written asynchronously in batches of about 4 KiB
 * rather than one write per line (two request lines per request would otherwise cost about a
 * quarter of the pass-through's throughput). A line waits at most LOG_FLUSH_MS; whatever is
 * pending is written synchronously when the process exits, crashes included.
 */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  const options = { level: config.logLevel, ...LOG_REDACTION };
  if (config.logLevel === 'silent') return pino(options);
  // A pipe (`npm start | …`) is written without ever blocking; a file or a terminal as before.
  const piped = pipeLogDestination({ batchBytes: LOG_BUFFER_BYTES, flushMs: LOG_FLUSH_MS });
  if (piped !== undefined) {
    const logger = pino(options, piped);
    attachDestination(logger, piped);
    return logger;
  }
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  const timer = setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Closed (at exit): nothing left to write.
    }
  }, LOG_FLUSH_MS);
  timer.unref();
  destination.on('close', () => clearInterval(timer));
  return pino(options, destination);
}

/** The only place that wires services together. Constructors take one options object; nothing is global. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const logger = overrides.logger ?? createLogger(config);
  const clock = withSystemSleep(overrides.clock ?? systemClock);
  const keyring = loadKeyring(config, {
    info: (msg) => logger.info(msg),
    warn: (msg) => logger.warn(msg),
  });
  const sharedLog = logger.child({ component: 'shared-state' });
  const shared: SharedState =
    config.redisUrl === undefined
      ? new LocalSharedState(() => clock.now())
      : new RedisSharedState({
          url: config.redisUrl,
          ...(config.redisTimeoutMs === undefined ? {} : { commandTimeoutMs: config.redisTimeoutMs }),
          now: () => clock.now(),
          log: { info: (msg) => sharedLog.info(msg), warn: (msg) => sharedLog.warn(msg) },
        });
  let store: Store;
  try {
    store = await openStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgSchema: overrides.pgSchema,
      clock,
      // With Redis, token and connection changes are also counted there, so every instance sees
      // them on its next request (PostgreSQL's NOTIFY alone arrives a moment later).
      relay:
        shared.mode() === 'local'
          ? undefined
          : { announce: () => shared.bump('store-changes'), version: () => shared.counter('store-changes') },
    });
  } catch (err) {
    await shared.close();
    throw err;
  }
  const modules = overrides.providers ?? BUILT_IN_PROVIDERS;
  const connections = new ConnectionService({
    store,
    keyring,
    region: config.region,
    clock: () => new Date(clock.now()),
    profiles: modules.map((m) => m.profile),
    plainHttpForSandbox: config.plainHttpCrm ?? !config.production,
  });
  const auth = new AuthService({
    store,
    clock: () => new Date(clock.now()),
    region: config.region,
    publicUrls: config.publicUrls,
    ...(overrides.authCacheTtlMs === undefined ? {} : { cacheTtlMs: overrides.authCacheTtlMs }),
    onBackgroundError: (err) => logger.warn({ err }, 'token last-used update failed'),
  });
  const client = new HttpClient({
    timeoutMs: config.capacity.crmTimeoutMs,
    connectTimeoutMs: config.capacity.crmConnectTimeoutMs,
    ...overrides.http,
    clock,
  });
  const metrics =
    config.metrics.port === undefined
      ? null
      : new Metrics(
          modules.map((m) => m.profile.id),
          { jobCounts: () => store.jobs.countByState(), logLinesDropped: () => droppedLines(logger) },
        );
  if (metrics !== null) client.addHook((event) => metrics.recordCrmCall(event));
  const outboundLog = logger.child({ component: 'outbound' });
  client.addHook((event) => {
    // The request and job the call was made for (lib/call-context.ts), so a job's calls can be followed.
    const entry = { ...currentCallIds(), ...event };
    if (event.retry !== undefined || event.failure !== undefined || (event.status ?? 0) >= 500) {
      outboundLog.warn(entry, 'crm call failed');
    } else {
      outboundLog.debug(entry, 'crm call');
    }
  });
  const registry = new ProviderRegistry(modules, {
    client,
    clock,
    config,
    shared,
    ...(metrics === null
      ? {}
      : { onPacerWait: (crm: string, kind: string, ms: number) => metrics.recordPacerWait(crm, kind, ms) }),
    tuning: {
      describeTtlMs: overrides.describeTtlMs,
      bulkThreshold: overrides.bulkThreshold,
    },
    // Query cursors are signed with a key derived from the active encryption key (never the key itself).
    signingKey: createHmac('sha256', keyring.keys.get(keyring.activeKeyId) ?? Buffer.alloc(32))
      .update('crm-proxy soql cursor v1')
      .digest(),
  });

  const oauthAppFor = (connection: Connection): OAuthApp | null => {
    const sandboxClient = connection.sandbox
      ? overrides.sandboxOAuthClients?.[connection.provider]
      : undefined;
    return registry.adapterFor(connection).oauthApp(connection, sandboxClient);
  };

  const tokens = new TokenManager({
    connections,
    locks: store.locks,
    adapterFor: (connection) => registry.adapterFor(connection),
    oauthAppFor,
    clock,
    log: logger.child({ component: 'tokens' }),
  });

  const connect = new ConnectService({
    store,
    connections,
    adapters: () => registry.list(),
    config,
    clock,
    sandboxes: sandboxCrms(overrides),
    onCredentialsReplaced: (id) => tokens.forget(id),
    logger: logger.child({ component: 'connect' }),
  });

  const forwarder = new ProxyForwarder();
  const { requestLog, operators, admin } = createOperatorServices({
    store,
    connections,
    auth,
    now: () => clock.now(),
    connect,
    displayName: (provider) =>
      registry.list().find((a) => a.profile.id === provider)?.profile.displayName ?? provider,
    requestLogDays: config.requestLogDays,
    onLogError: (err) => logger.warn({ err }, 'request log write failed'),
  });
  const operations: OperationDeps = {
    registry,
    tokens,
    client,
    limiters: new ConnectionLimiters(
      overrides.perConnectionConcurrency ?? config.capacity.connectionConcurrency,
      { state: shared, sleep: (ms, signal) => clock.sleep(ms, signal) },
    ),
    forwarder,
  };
  const durable = config.durable ?? DEFAULT_DURABLE;
  const idempotency = new IdempotencyService({
    keys: store.idempotency,
    jobs: store.jobs,
    clock,
    ttlMs: durable.idempotencyTtlMs,
    leaseMs: durable.jobLeaseMs,
  });
  const jobs = new JobRunner({
    jobs: store.jobs,
    operations,
    loadConnection: async (id) => (await connections.get(id))?.connection ?? null,
    clock,
    logger: logger.child({ component: 'jobs' }),
    leaseMs: durable.jobLeaseMs,
    retentionMs: durable.jobRetentionMs,
    recordsInFlight: durable.jobRecordsInFlight,
    onPrune: async () => {
      await idempotency.prune();
    },
  });
  const rateLimit = overrides.rateLimit === undefined ? config.capacity.rateLimit : overrides.rateLimit;
  const tracing = config.tracing === undefined ? null : createTracing(config.tracing);

  return {
    config,
    tracing,
    logger,
    store,
    connections,
    auth,
    tokens,
    registry,
    connect,
    client,
    operations,
    jobs,
    idempotency,
    bodyLimit: overrides.bodyLimit ?? config.capacity.bodyLimitBytes,
    rateLimit,
    // In-process buckets stay synchronous; only a shared (Redis) limit costs an await per request.
    rateLimiter:
      rateLimit === null
        ? null
        : new RateLimiter(rateLimit, clock, shared.mode() === 'local' ? null : shared),
    clock,
    operators,
    requestLog,
    admin,
    metrics,
    shared,
    readinessDetails(): Record<string, string> {
      const mode = shared.mode();
      if (mode === 'local') return {};
      return {
        redis:
          mode === 'shared' ? 'ok, limits shared across instances' : 'degraded, using per-instance limits',
      };
    },
    async isReady() {
      try {
        // A primary-key lookup that finds nothing: cheap, and proves the store answers.
        await store.connections.find('conn_readiness_probe');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await jobs.close();
      await requestLog.close();
      await auth.close();
      await client.close();
      await forwarder.close();
      await shared.close();
      await tracing?.shutdown();
      await store.close();
    },
  };
}

/** The sandbox CRMs the connect flow may send browsers to: those with both a URL and an OAuth client. */
function sandboxCrms(overrides: ContextOverrides): Record<Provider, SandboxCrm> | undefined {
  const urls = overrides.sandboxUrls;
  const clients = overrides.sandboxOAuthClients;
  if (urls === undefined || clients === undefined) return undefined;
  const out: Record<Provider, SandboxCrm> = {};
  for (const [provider, url] of Object.entries(urls)) {
    const client = clients[provider];
    if (client !== undefined)
      out[provider] = { url, clientId: client.clientId, clientSecret: client.clientSecret };
  }
  return out;
}
