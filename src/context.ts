import { createHmac } from 'node:crypto';
import { type Logger, pino } from 'pino';
import { AuthService } from './auth/service.ts';
import type { Config } from './config/index.ts';
import { ConnectionService } from './connections/service.ts';
import { TokenManager } from './connections/token-manager.ts';
import { loadKeyring } from './crypto/keyring.ts';
import type { RateLimitOptions } from './http/plugins/rate-limit.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { LOG_REDACT_PATHS } from './lib/redact.ts';
import { ConnectionLimiters, type OperationDeps } from './operations/deps.ts';
import type { OAuthApp } from './providers/adapter.ts';
import { HttpClient, type HttpClientOptions } from './providers/client/http-client.ts';
import { createProviderRegistry, type ProviderRegistry } from './providers/registry.ts';
import { SALESFORCE_PROFILE } from './providers/salesforce/profile.ts';
import { openStore } from './store/index.ts';
import type { Connection, Provider, Store } from './store/types.ts';

/** OAuth client of one provider (the service's app registration). */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface ContextOverrides {
  logger?: Logger;
  clock?: Clock;
  /** PostgreSQL only: keep the tables in this schema (test isolation). */
  pgSchema?: string;
  /** OAuth clients for sandbox connections (the sandboxes' own client ids), by provider. */
  sandboxOAuthClients?: Partial<Record<Provider, OAuthClient>>;
  http?: HttpClientOptions;
  /** Parallel CRM calls per connection, across all requests (default 16: under Salesforce’s 25 concurrent long-running calls). */
  perConnectionConcurrency?: number;
  /** Describe cache TTL (default 10 minutes). */
  describeTtlMs?: number;
  /** Salesforce writes of at least this many records use Bulk API 2.0 (default: config, else the provider's). */
  salesforceBulkThreshold?: number;
  /** Auth lookup cache TTL. */
  authCacheTtlMs?: number;
  /** Largest accepted JSON request body in bytes (default 8 MiB, see app.ts). */
  bodyLimit?: number;
  /** Per-token rate limit; null turns it off. Default: 200 requests/s, bursts of 2000. */
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
  client: HttpClient;
  operations: OperationDeps;
  bodyLimit: number;
  rateLimit: RateLimitOptions | null;
  /** The store answers (readiness). */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Generous enough for a script that fans out (a refresh storm of 1,000 parallel calls fits the
 * burst), low enough that one runaway client cannot drain the CRM account's daily API allowance.
 */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { perSecond: 200, burst: 2000 };

/** 10,000 records of ~800 bytes of JSON each; the reasoning is in app.ts. */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
  });
}

function bulkThresholdOf(value: number | undefined): { bulkThreshold?: number } {
  return value === undefined ? {} : { bulkThreshold: value };
}

/** The only place that wires services together. Constructors take one options object; nothing is global. */
export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const logger = overrides.logger ?? createLogger(config);
  const clock = overrides.clock ?? systemClock;
  const keyring = loadKeyring(config, {
    info: (msg) => logger.info(msg),
    warn: (msg) => logger.warn(msg),
  });
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: overrides.pgSchema,
  });
  const connections = new ConnectionService({ store, keyring, region: config.region });
  const auth = new AuthService({
    store,
    region: config.region,
    publicUrls: config.publicUrls,
    ...(overrides.authCacheTtlMs === undefined ? {} : { cacheTtlMs: overrides.authCacheTtlMs }),
    onBackgroundError: (err) => logger.warn({ err }, 'token last-used update failed'),
  });
  const client = new HttpClient(overrides.http);
  const outboundLog = logger.child({ component: 'outbound' });
  client.addHook((event) => {
    if (event.retry !== undefined || event.failure !== undefined || (event.status ?? 0) >= 500) {
      outboundLog.warn(event, 'crm call failed');
    } else {
      outboundLog.debug(event, 'crm call');
    }
  });
  const registry = createProviderRegistry({
    client,
    clock,
    salesforce: {
      apiVersion: config.salesforce.apiVersion ?? SALESFORCE_PROFILE.defaultApiVersion,
      describeTtlMs: overrides.describeTtlMs ?? 10 * 60_000,
      ...bulkThresholdOf(overrides.salesforceBulkThreshold ?? config.salesforce.bulkThreshold),
      // Query cursors are signed with a key derived from the active encryption key (never the key itself).
      cursorKey: createHmac('sha256', keyring.keys.get(keyring.activeKeyId) ?? Buffer.alloc(32))
        .update('crm-proxy soql cursor v1')
        .digest(),
    },
  });

  const oauthAppFor = (connection: Connection): OAuthApp | null => {
    const own = connection.sandbox ? overrides.sandboxOAuthClients?.[connection.provider] : undefined;
    const configured = config[connection.provider];
    const clientId = own?.clientId ?? configured.clientId;
    const clientSecret = own?.clientSecret ?? configured.clientSecret;
    if (clientId === undefined || clientSecret === undefined) return null;
    const loginUrl = connection.provider === 'salesforce' ? config.salesforce.loginUrl : undefined;
    return { clientId, clientSecret, tokenUrl: registry[connection.provider].tokenUrl(connection, loginUrl) };
  };

  const tokens = new TokenManager({
    connections,
    locks: store.locks,
    adapterFor: (connection) => registry[connection.provider],
    oauthAppFor,
    clock,
    log: logger.child({ component: 'tokens' }),
  });

  return {
    config,
    logger,
    store,
    connections,
    auth,
    tokens,
    registry,
    client,
    operations: {
      registry,
      tokens,
      client,
      limiters: new ConnectionLimiters(overrides.perConnectionConcurrency ?? 16),
    },
    bodyLimit: overrides.bodyLimit ?? DEFAULT_BODY_LIMIT,
    rateLimit: overrides.rateLimit === undefined ? DEFAULT_RATE_LIMIT : overrides.rateLimit,
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
      await auth.close();
      await client.close();
      await store.close();
    },
  };
}
