import { type Logger, pino } from 'pino';
import type { OperatorService } from './admin/operators.ts';
import type { RequestLog } from './admin/request-log.ts';
import type { AdminService } from './admin/service.ts';
import { FirstOperatorSetup } from './admin/setup-code.ts';
import { RateLimiter, type RateLimitOptions } from './auth/rate-limit.ts';
import type { AuthService } from './auth/service.ts';
import type { Config } from './config/index.ts';
import type { ConnectService, SandboxCrm } from './connect/service.ts';
import type { ConnectionService } from './connections/service.ts';
import type { TokenManager } from './connections/token-manager.ts';
import {
  accessServices,
  type ContextOverrides,
  closeInOrder,
  credentialServices,
  durableServices,
  observability,
  openShared,
  openStoreShared,
  operatorServices,
  outboundClient,
  providerRegistry,
} from './context-wiring.ts';
import { loadKeyring } from './crypto/keyring.ts';
import type { Provider } from './domain/connection.ts';
import type { IdempotencyService } from './jobs/idempotency.ts';
import type { JobRunner } from './jobs/runner.ts';
import { type Clock, systemClock, withSystemSleep } from './lib/clock.ts';
import { attachDestination, droppedLines, pipeLogDestination } from './lib/log-destination.ts';
import type { Metrics } from './lib/metrics.ts';
import { LOG_REDACTION } from './lib/redact.ts';
import type { SharedState } from './lib/shared-state.ts';
import type { Tracing } from './lib/tracing.ts';
import { ConnectionLimiters, type OperationDeps } from './operations/deps.ts';
import type { HttpClient } from './providers/client/http-client.ts';
import { BUILT_IN_PROVIDERS } from './providers/index.ts';
import type { ProviderRegistry } from './providers/registry.ts';
import { ProxyForwarder } from './proxy/forwarder.ts';
import { ReplayBudget } from './proxy/replay-copy.ts';
import type { Store } from './store/types.ts';

export type { OAuthClient } from './providers/adapter.ts';

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
  /** The one-time setup code that lets the console create the first operator. */
  setup: FirstOperatorSetup;
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

/** Log lines wait in memory until this many bytes are pending (or the flush timer fires). */
const LOG_BUFFER_BYTES = 4096;
/** Longest a line waits in the buffer when traffic is low. */
const LOG_FLUSH_MS = 250;

/**
 * The service's logger: JSON lines on stdout (or in `config.logFile`), written asynchronously in
 * batches of about 4 KiB rather than one write per line (two request lines per request would
 * otherwise cost about a quarter of the pass-through's throughput). A line waits at most
 * LOG_FLUSH_MS; whatever is pending is written synchronously when the process exits, crashes included
 * (on a pipe or a socket, only what the reader takes at once: exit never waits for a stalled reader).
 */
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
  // A pipe (`npm start | …`) or a socket is written without ever blocking, up to a bound past which
  // lines are dropped and counted (src/lib/log-destination.ts); a file or a terminal as before.
  const piped = toFile
    ? undefined
    : pipeLogDestination({ batchBytes: LOG_BUFFER_BYTES, flushMs: LOG_FLUSH_MS });
  if (piped !== undefined) {
    const logger = pino(options, piped);
    attachDestination(logger, piped);
    return logger;
  }
  const destination = pino.destination({
    dest: toFile ? config.logFile : 1,
    sync: false,
    mkdir: toFile,
    minLength: LOG_BUFFER_BYTES,
  });
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
  const keyring = loadKeyring(config, { info: (msg) => logger.info(msg), warn: (msg) => logger.warn(msg) });
  const shared = await openShared(config, clock, logger);
  const store = await openStoreShared(config, overrides, clock, shared);
  const modules = overrides.providers ?? BUILT_IN_PROVIDERS;
  const { connections, auth } = accessServices({ config, store, keyring, clock, logger, modules });
  const { metrics, tracing } = await observability(config, modules, {
    jobCounts: () => store.jobs.countByState(),
    logLinesDropped: () => droppedLines(logger),
  });
  const client = outboundClient(config, clock, logger, metrics);
  const registry = providerRegistry(modules, { config, client, clock, shared, metrics, keyring });
  const { tokens, connect } = credentialServices({
    config,
    overrides,
    store,
    connections,
    registry,
    clock,
    logger,
    sandboxes: sandboxCrms(overrides),
  });
  const forwarder = new ProxyForwarder();
  const { requestLog, operators, admin } = operatorServices({
    config,
    store,
    connections,
    auth,
    connect,
    registry,
    clock,
    logger,
    keyring,
  });
  const limiters = new ConnectionLimiters(config.capacity.connectionConcurrency, {
    state: shared,
    sleep: (ms, signal) => clock.sleep(ms, signal),
    leaseMs: config.capacity.placeLeaseMs,
  });
  const budget = new ReplayBudget(config.capacity.replayBudgetBytes);
  const replay = { budget, skipWindowMs: config.capacity.replaySkipWindowMs };
  const operations: OperationDeps = { registry, tokens, client, limiters, forwarder, replay };
  const { idempotency, jobs } = durableServices({ config, store, operations, connections, clock, logger });
  const { rateLimit } = config.capacity;
  const tracingPart = { close: async () => tracing?.shutdown() };
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
    bodyLimit: config.capacity.bodyLimitBytes,
    rateLimit,
    // In-process buckets stay synchronous; only a shared (Redis) limit costs an await per request.
    rateLimiter: rateLimit && new RateLimiter(rateLimit, clock, shared.mode() === 'local' ? null : shared),
    clock,
    operators,
    setup: new FirstOperatorSetup({ operators, now: () => clock.now() }),
    requestLog,
    admin,
    metrics,
    shared,
    readinessDetails: () => redisDetails(shared),
    isReady: () => storeAnswers(store),
    // In this order: jobs and the request log still write to the store while they wind down.
    close: () => closeInOrder([jobs, requestLog, auth, client, forwarder, shared, tracingPart, store]),
  };
}

/** Readiness details beyond the store: Redis's state when it is configured. */
function redisDetails(shared: SharedState): Record<string, string> {
  const mode = shared.mode();
  if (mode === 'local') return {};
  return {
    redis: mode === 'shared' ? 'ok, limits shared across instances' : 'degraded, using per-instance limits',
  };
}

async function storeAnswers(store: Store): Promise<boolean> {
  try {
    // A primary-key lookup that finds nothing: cheap, and proves the store answers.
    await store.connections.find('conn_readiness_probe');
    return true;
  } catch {
    return false;
  }
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
