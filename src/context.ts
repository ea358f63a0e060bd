import { createHmac } from 'node:crypto';
import { type Logger, pino } from 'pino';
import { OperatorService } from './admin/operators.ts';
import { RequestLog } from './admin/request-log.ts';
import { AdminService } from './admin/service.ts';
import { FirstOperatorSetup } from './admin/setup-code.ts';
import { RateLimiter } from './auth/rate-limit.ts';
import { AuthService } from './auth/service.ts';
import type { Config } from './config/index.ts';
import { ConnectService } from './connect/service.ts';
import { ConnectionService } from './connections/service.ts';
import { TokenManager } from './connections/token-manager.ts';
import type { Keyring } from './crypto/envelope.ts';
import { type KeyringLog, loadKeyring } from './crypto/keyring.ts';
import { signingKeys } from './crypto/signing.ts';
import type { Provider } from './domain/connection.ts';
import { IdempotencyService } from './jobs/idempotency.ts';
import { JobRunner } from './jobs/runner.ts';
import { currentCallIds } from './lib/call-context.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { droppedLines, LOG_BATCH_BYTES, LOG_FLUSH_MS, pipeLogDestination } from './lib/log-destination.ts';
import type { Metrics } from './lib/metrics.ts';
import { LOG_REDACTION } from './lib/redact.ts';
import { LocalSharedState, type SharedState } from './lib/shared-state.ts';
import type { Tracing } from './lib/tracing.ts';
import { ConnectionLimiters, type OperationDeps } from './operations/deps.ts';
import type { OAuthClient, ProviderModule } from './providers/adapter.ts';
import { HttpClient } from './providers/client/http-client.ts';
import { BUILT_IN_PROVIDERS } from './providers/index.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { ProxyForwarder } from './proxy/forwarder.ts';
import { ReplayBudget } from './proxy/replay-copy.ts';
import { openStore } from './store/index.ts';
import type { Store } from './store/types.ts';

export interface AppContext {
  config: Config;
  logger: Logger;
  keyring: Keyring;
  store: Store;
  connections: ConnectionService;
  auth: AuthService;
  tokens: TokenManager;
  registry: ProviderRegistry;
  connect: ConnectService;
  client: HttpClient;
  operations: OperationDeps;
  /** Durable jobs; `startService` starts their sweep (resuming interrupted jobs). */
  jobs: JobRunner;
  idempotency: IdempotencyService;
  bodyLimit: number;
  /** The per-token rate limiter (CRM_PROXY_RATE_LIMIT_*); null when it is off. */
  rateLimiter: RateLimiter | null;
  clock: Clock;
  operators: OperatorService;
  /** The one-time setup code that lets the console create the first operator. */
  setup: FirstOperatorSetup;
  /** The request log (buffered, written in batches). */
  requestLog: RequestLog;
  admin: AdminService;
  /** Prometheus metrics; null unless a metrics port is configured. */
  metrics: Metrics | null;
  /** OpenTelemetry tracing; null unless a collector is configured. */
  tracing: Tracing | null;
  isReady(): Promise<boolean>;
  /** Readiness details beyond the store: Redis's state when it is configured (it never makes the instance unready). */
  readinessDetails(): Record<string, string>;
  close(): Promise<void>;
}

/** The service's logger: JSON lines written asynchronously in batches (a write per line costs dearly). */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFile'>,
  /** Sees each line before it is written; what it returns is written ('' writes nothing). */
  streamWrite?: (line: string) => string,
): Logger {
  const options = {
    level: config.logLevel,
    ...LOG_REDACTION,
    ...(streamWrite === undefined ? {} : { hooks: { streamWrite } }),
  };
  if (config.logLevel === 'silent') return pino(options);
  const toFile = config.logFile !== undefined && config.logFile !== '-';
  // A pipe or a socket never blocks the service (lib/log-destination.ts).
  const piped = toFile ? undefined : pipeLogDestination();
  if (piped !== undefined) return pino(options, piped);
  const destination = pino.destination({
    dest: toFile ? config.logFile : 1,
    sync: false,
    mkdir: toFile,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  return pino(options, destination);
}

/** What a caller may give beside the configuration (which holds every setting): the logger, the clock, test seams. */
export interface ContextOverrides {
  logger?: Logger;
  keyringLog?: KeyringLog;
  /** Time source of every service object; a clock without `sleep` waits in real time. */
  clock?: Pick<Clock, 'now'> & Partial<Pick<Clock, 'sleep'>>;
  /** The CRMs to speak (default: the built-in ones); tests add their own. */
  providers?: readonly ProviderModule[];
  /** PostgreSQL only: keep the tables in this schema (test isolation). */
  pgSchema?: string;
  /** Sandbox CRMs by provider: their OAuth client, and their address if the connect flow may send browsers there. */
  sandboxes?: Record<Provider, OAuthClient & { url?: string }>;
}

type Base = Awaited<ReturnType<typeof openBase>>;

/** Wires the services: process-wide pieces, then the CRM side, then the operations and jobs built on it. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const modules = overrides.providers ?? BUILT_IN_PROVIDERS;
  const base = await openBase(config, overrides, modules);
  const { logger, clock, keyring, shared, store } = base;
  const crm = crmServices(base, modules, overrides);
  const { connections, auth, client, registry, connect } = crm;
  const work = workServices(base, crm);
  const now = () => clock.now();
  const requestLog = new RequestLog({
    store,
    now,
    retentionMs: config.requestLogDays * 86400_000,
    onError: (err) => logger.warn({ err }, 'request log write failed'),
  });
  const cookieKeys = signingKeys(keyring, 'console cookies v1');
  const operators = new OperatorService({ store, now, cookieKeys });
  const displayName = (provider: string) =>
    registry.list().find((a) => a.profile.id === provider)?.profile.displayName ?? provider;
  const admin = new AdminService({ store, connections, auth, requestLog, now, connect, displayName });
  const { rateLimit } = config.capacity;
  // In this order: jobs and the request log still write to the store while they wind down.
  const { jobs, operations } = work;
  const closing = [jobs, requestLog, auth, client, operations.forwarder, shared, base.tracing, store];
  const { shared: _, ...parts } = base;
  return {
    ...parts,
    ...crm,
    ...work,
    bodyLimit: config.capacity.bodyLimitBytes,
    rateLimiter: rateLimit && new RateLimiter(rateLimit, clock, shared),
    operators,
    setup: new FirstOperatorSetup({ operators, now }),
    requestLog,
    admin,
    readinessDetails: (): Record<string, string> => {
      const mode = shared.mode();
      const redis =
        mode === 'shared' ? 'ok, limits shared across instances' : 'degraded, using per-instance limits';
      return mode === 'local' ? {} : { redis };
    },
    // A primary-key lookup that finds nothing: cheap, and proves the store answers.
    isReady: () =>
      store.connections.find('conn_readiness_probe').then(
        () => true,
        () => false,
      ),
    async close() {
      for (const part of closing) await part?.close();
    },
  };
}

/** The logger, clock, keys, shared state, store, metrics and tracing (optional libraries imported only when on). */
async function openBase(config: Config, overrides: ContextOverrides, modules: readonly ProviderModule[]) {
  const logger = overrides.logger ?? createLogger(config);
  const given = overrides.clock ?? systemClock;
  const clock: Clock = { now: () => given.now(), sleep: given.sleep?.bind(given) ?? systemClock.sleep };
  const keyring = loadKeyring(config, overrides.keyringLog ?? logger);
  const shared: SharedState =
    config.redisUrl === undefined
      ? new LocalSharedState(() => clock.now())
      : new (await import('./lib/redis-shared-state.ts')).RedisSharedState({
          url: config.redisUrl,
          commandTimeoutMs: config.redisTimeoutMs,
          now: () => clock.now(),
          log: logger.child({ component: 'shared-state' }),
        });
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: overrides.pgSchema,
    clock,
    // With Redis, every instance sees store changes on its next request (NOTIFY arrives a moment later).
    relay:
      shared.mode() === 'local'
        ? undefined
        : { announce: () => shared.bump('store-changes'), version: () => shared.counter('store-changes') },
  }).catch(async (err: unknown) => {
    await shared.close();
    throw err;
  });
  const metrics =
    config.metrics.port === undefined
      ? null
      : new (await import('./lib/metrics.ts')).Metrics(
          modules.map((m) => m.profile.id),
          { jobCounts: () => store.jobs.countByState(), logLinesDropped: () => droppedLines(logger) },
        );
  const tracing =
    config.tracing === undefined ? null : (await import('./lib/tracing.ts')).createTracing(config.tracing);
  return { config, logger, clock, keyring, shared, store, metrics, tracing };
}

function crmServices(base: Base, modules: readonly ProviderModule[], overrides: ContextOverrides) {
  const { config, logger, clock, keyring, shared, store, metrics } = base;
  const date = () => new Date(clock.now());
  const connections = new ConnectionService({
    store,
    keyring,
    region: config.region,
    clock: date,
    profiles: modules.map((m) => m.profile),
    plainHttpForSandbox: config.plainHttpCrm,
  });
  const auth = new AuthService({
    store,
    clock: date,
    region: config.region,
    publicUrls: config.publicUrls,
    cacheTtlMs: config.authCacheTtlMs,
    onBackgroundError: (err) => logger.warn({ err }, 'token last-used update failed'),
  });
  const client = outboundClient(base);
  const registry = new ProviderRegistry(
    modules,
    {
      client,
      clock,
      shared,
      onPacerWait: metrics === null ? undefined : (crm, kind, ms) => metrics.recordPacerWait(crm, kind, ms),
      // Query cursors are signed with a key derived from the active encryption key (never the key itself).
      signingKey: createHmac('sha256', keyring.keys.get(keyring.activeKeyId) ?? Buffer.alloc(32))
        .update('crm-proxy soql cursor v1')
        .digest(),
    },
    config.providers,
  );
  const sandboxes = overrides.sandboxes ?? {};
  const tokens = new TokenManager({
    connections,
    locks: store.locks,
    adapterFor: (connection) => registry.adapterFor(connection),
    oauthAppFor: (connection) =>
      registry
        .adapterFor(connection)
        .oauthApp(connection, connection.sandbox ? sandboxes[connection.provider] : undefined),
    clock,
    log: logger.child({ component: 'tokens' }),
    plainHttpAllowed: config.plainHttpCrm,
  });
  const connect = new ConnectService({
    store,
    connections,
    adapters: () => registry.list(),
    config,
    clock,
    sandboxes: Object.fromEntries(
      Object.entries(sandboxes).flatMap(([provider, { url, clientId, clientSecret }]) =>
        url === undefined ? [] : [[provider, { url, clientId, clientSecret }]],
      ),
    ),
    onCredentialsReplaced: (id) => tokens.forget(id),
    logger: logger.child({ component: 'connect' }),
  });
  return { connections, auth, client, registry, tokens, connect };
}

function workServices(base: Base, crm: ReturnType<typeof crmServices>) {
  const { store, clock, logger, config, shared } = base;
  const { capacity, durable } = config;
  const operations: OperationDeps = {
    registry: crm.registry,
    tokens: crm.tokens,
    client: crm.client,
    // Its own 120 s wait for headers (a pass-through may be a long report); the connect bound is the service's.
    forwarder: new ProxyForwarder({ connectTimeoutMs: capacity.crmConnectTimeoutMs }),
    limiters: new ConnectionLimiters(capacity.connectionConcurrency, {
      state: shared,
      sleep: (ms, signal) => clock.sleep(ms, signal),
      leaseMs: capacity.placeLeaseMs,
    }),
    replay: {
      budget: new ReplayBudget(capacity.replayBudgetBytes),
      skipWindowMs: capacity.replaySkipWindowMs,
    },
  };
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
    loadConnection: async (id) => (await crm.connections.get(id))?.connection ?? null,
    clock,
    logger: logger.child({ component: 'jobs' }),
    leaseMs: durable.jobLeaseMs,
    sweepMs: durable.jobSweepMs,
    retentionMs: durable.jobRetentionMs,
    recordsInFlight: durable.jobRecordsInFlight,
    onPrune: () => idempotency.prune().then(() => undefined),
  });
  return { operations, idempotency, jobs };
}

/** The one outbound client, its calls counted (metrics) and logged with the request or job they serve. */
function outboundClient({ config, clock, logger, metrics }: Base): HttpClient {
  const client = new HttpClient({
    timeoutMs: config.capacity.crmTimeoutMs,
    connectTimeoutMs: config.capacity.crmConnectTimeoutMs,
    retry: { maxAttempts: config.capacity.crmMaxAttempts },
    clock,
  });
  const outboundLog = logger.child({ component: 'outbound' });
  client.addHook((event) => {
    metrics?.recordCrmCall(event);
    const entry = { ...currentCallIds(), ...event };
    const failed = event.retry !== undefined || event.failure !== undefined || (event.status ?? 0) >= 500;
    if (failed) outboundLog.warn(entry, 'crm call failed');
    else outboundLog.debug(entry, 'crm call');
  });
  return client;
}
