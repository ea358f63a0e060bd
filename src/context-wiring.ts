// The parts `createContext` (context.ts) wires, one function each: the shared state, the store,
// the outbound client with its hooks, the provider registry, the durable jobs. Nothing here is
// global; each function builds from what it is given.
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { createOperatorServices } from './admin/service.ts';
import { AuthService } from './auth/service.ts';
import type { Config } from './config/index.ts';
import { ConnectService, type SandboxCrm } from './connect/service.ts';
import { ConnectionService } from './connections/service.ts';
import { TokenManager } from './connections/token-manager.ts';
import type { Keyring } from './crypto/envelope.ts';
import { signingKeys } from './crypto/signing.ts';
import type { Connection, Provider } from './domain/connection.ts';
import { IdempotencyService } from './jobs/idempotency.ts';
import { JobRunner } from './jobs/runner.ts';
import { currentCallIds } from './lib/call-context.ts';
import type { Clock } from './lib/clock.ts';
import type { Metrics, MetricsSources } from './lib/metrics.ts';
import { LocalSharedState, type SharedState } from './lib/shared-state.ts';
import type { Tracing } from './lib/tracing.ts';
import type { OperationDeps } from './operations/deps.ts';
import type { OAuthApp, OAuthClient, ProviderModule } from './providers/adapter.ts';
import { HttpClient } from './providers/client/http-client.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { openStore } from './store/index.ts';
import type { Store } from './store/types.ts';

/**
 * What a caller may give beside the configuration: the logger, the clock, and test seams. Every
 * setting comes from the configuration (`loadConfig`), the same way for tests as for users.
 */
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
}

/**
 * What instances share: Redis when `REDIS_URL` is set, else this process alone. The Redis client
 * is loaded only then (like tracing and metrics below, an unused library is never resident).
 */
export async function openShared(config: Config, clock: Clock, logger: Logger): Promise<SharedState> {
  if (config.redisUrl === undefined) return new LocalSharedState(() => clock.now());
  const log = logger.child({ component: 'shared-state' });
  const { RedisSharedState } = await import('./lib/redis-shared-state.ts');
  return new RedisSharedState({
    url: config.redisUrl,
    commandTimeoutMs: config.redisTimeoutMs,
    now: () => clock.now(),
    log: { info: (msg) => log.info(msg), warn: (msg) => log.warn(msg) },
  });
}

/** Metrics and tracing when they are on; prom-client and OpenTelemetry are loaded only then. */
export async function observability(
  config: Config,
  modules: readonly ProviderModule[],
  sources: MetricsSources,
): Promise<{ metrics: Metrics | null; tracing: Tracing | null }> {
  const metrics =
    config.metrics.port === undefined
      ? null
      : new (await import('./lib/metrics.ts')).Metrics(
          modules.map((m) => m.profile.id),
          sources,
        );
  const tracing =
    config.tracing === undefined ? null : (await import('./lib/tracing.ts')).createTracing(config.tracing);
  return { metrics, tracing };
}

/** The store; the shared state is closed again when it cannot be opened. */
export async function openStoreShared(
  config: Config,
  overrides: ContextOverrides,
  clock: Clock,
  shared: SharedState,
): Promise<Store> {
  try {
    return await openStore({
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
}

/** The one outbound client, its calls counted (metrics) and logged with the request or job they serve. */
export function outboundClient(
  config: Config,
  clock: Clock,
  logger: Logger,
  metrics: Metrics | null,
): HttpClient {
  const client = new HttpClient({
    timeoutMs: config.capacity.crmTimeoutMs,
    connectTimeoutMs: config.capacity.crmConnectTimeoutMs,
    retry: { maxAttempts: config.capacity.crmMaxAttempts },
    clock,
  });
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
  return client;
}

export function providerRegistry(
  modules: readonly ProviderModule[],
  wiring: {
    config: Config;
    client: HttpClient;
    clock: Clock;
    shared: SharedState;
    metrics: Metrics | null;
    keyring: Keyring;
  },
): ProviderRegistry {
  const { config, client, clock, shared, metrics, keyring } = wiring;
  return new ProviderRegistry(
    modules,
    {
      client,
      clock,
      shared,
      ...(metrics === null
        ? {}
        : { onPacerWait: (crm: string, kind: string, ms: number) => metrics.recordPacerWait(crm, kind, ms) }),
      // Query cursors are signed with a key derived from the active encryption key (never the key itself).
      signingKey: createHmac('sha256', keyring.keys.get(keyring.activeKeyId) ?? Buffer.alloc(32))
        .update('crm-proxy soql cursor v1')
        .digest(),
    },
    config.providers,
  );
}

/** Durable writes: the job runner, and the idempotency keys it prunes with its sweep. */
export function durableServices(wiring: {
  config: Config;
  store: Store;
  operations: OperationDeps;
  connections: ConnectionService;
  clock: Clock;
  logger: Logger;
}): { idempotency: IdempotencyService; jobs: JobRunner } {
  const { store, clock, connections } = wiring;
  const { durable } = wiring.config;
  const idempotency = new IdempotencyService({
    keys: store.idempotency,
    jobs: store.jobs,
    clock,
    ttlMs: durable.idempotencyTtlMs,
    leaseMs: durable.jobLeaseMs,
  });
  const jobs = new JobRunner({
    jobs: store.jobs,
    operations: wiring.operations,
    loadConnection: async (id) => (await connections.get(id))?.connection ?? null,
    clock,
    logger: wiring.logger.child({ component: 'jobs' }),
    leaseMs: durable.jobLeaseMs,
    sweepMs: durable.jobSweepMs,
    retentionMs: durable.jobRetentionMs,
    recordsInFlight: durable.jobRecordsInFlight,
    onPrune: async () => {
      await idempotency.prune();
    },
  });
  return { idempotency, jobs };
}

/** The connections (credentials sealed with the keyring) and the API tokens' verification. */
export function accessServices(wiring: {
  config: Config;
  store: Store;
  keyring: Keyring;
  clock: Clock;
  logger: Logger;
  modules: readonly ProviderModule[];
}): { connections: ConnectionService; auth: AuthService } {
  const { config, store, clock } = wiring;
  const connections = new ConnectionService({
    store,
    keyring: wiring.keyring,
    region: config.region,
    clock: () => new Date(clock.now()),
    profiles: wiring.modules.map((m) => m.profile),
    plainHttpForSandbox: config.plainHttpCrm,
  });
  const auth = new AuthService({
    store,
    clock: () => new Date(clock.now()),
    region: config.region,
    publicUrls: config.publicUrls,
    cacheTtlMs: config.authCacheTtlMs,
    onBackgroundError: (err) => wiring.logger.warn({ err }, 'token last-used update failed'),
  });
  return { connections, auth };
}

/** The token manager (refresh, single flight) and the browser connect flow. */
export function credentialServices(wiring: {
  config: Config;
  overrides: ContextOverrides;
  store: Store;
  connections: ConnectionService;
  registry: ProviderRegistry;
  clock: Clock;
  logger: Logger;
  sandboxes: Record<Provider, SandboxCrm> | undefined;
}): { tokens: TokenManager; connect: ConnectService } {
  const { overrides, store, connections, registry, clock, logger } = wiring;
  const tokens = new TokenManager({
    connections,
    locks: store.locks,
    adapterFor: (connection) => registry.adapterFor(connection),
    oauthAppFor: (connection: Connection): OAuthApp | null => {
      const sandboxClient = connection.sandbox
        ? overrides.sandboxOAuthClients?.[connection.provider]
        : undefined;
      return registry.adapterFor(connection).oauthApp(connection, sandboxClient);
    },
    clock,
    log: logger.child({ component: 'tokens' }),
    plainHttpAllowed: wiring.config.plainHttpCrm,
  });
  const connect = new ConnectService({
    store,
    connections,
    adapters: () => registry.list(),
    config: wiring.config,
    clock,
    sandboxes: wiring.sandboxes,
    onCredentialsReplaced: (id) => tokens.forget(id),
    logger: logger.child({ component: 'connect' }),
  });
  return { tokens, connect };
}

/** Operator accounts and sessions, the request log, and what the console and the admin API show. */
export function operatorServices(wiring: {
  config: Config;
  store: Store;
  connections: ConnectionService;
  auth: AuthService;
  connect: ConnectService;
  registry: ProviderRegistry;
  clock: Clock;
  logger: Logger;
  keyring: Keyring;
}) {
  const { registry, logger, clock } = wiring;
  return createOperatorServices({
    cookieKeys: signingKeys(wiring.keyring, 'console cookies v1'),
    store: wiring.store,
    connections: wiring.connections,
    auth: wiring.auth,
    now: () => clock.now(),
    connect: wiring.connect,
    displayName: (provider) =>
      registry.list().find((a) => a.profile.id === provider)?.profile.displayName ?? provider,
    requestLogDays: wiring.config.requestLogDays,
    onLogError: (err) => logger.warn({ err }, 'request log write failed'),
  });
}

/** Closes one after the other, in the order given. */
export async function closeInOrder(
  parts: ReadonlyArray<{ close(): Promise<unknown> | undefined }>,
): Promise<void> {
  for (const part of parts) await part.close();
}
