// Environment → typed Config, parsed once at start-up. Errors name the variable, never its value.
import { resolve } from 'node:path';
import { REGIONS, type Region } from '../domain/connection.ts';
import { BUILT_IN_PROVIDERS } from '../providers/index.ts';
import { type CapacityLimits, DEFAULT_CAPACITY, parseCapacity } from './capacity.ts';
import { DEFAULT_DURABLE, type DurableSettings, parseDurable } from './durable.ts';
import { ConfigError, ConfigProblems } from './error.ts';
import { type MetricsConfig, parseMetricsConfig, parseTracingConfig, type TracingConfig } from './metrics.ts';
import { productionProblems } from './production.ts';
import { bool, type Env, hours, oneOf, port, str, url, wholeNumber } from './read.ts';
import { DEFAULT_SERVER_LIMITS, parseServerLimits, type ServerLimits } from './server-limits.ts';
import { readSettings, type SettingsSource } from './settings.ts';

export { type CapacityLimits, DEFAULT_CAPACITY } from './capacity.ts';
export { DEFAULT_DURABLE, type DurableSettings } from './durable.ts';
export { ConfigError, ConfigProblems } from './error.ts';
export type { MetricsConfig, TracingConfig } from './metrics.ts';
export { checkProductionSafety, isLoopbackHost } from './production.ts';
export { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.ts';
export type { SettingsSource } from './settings.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface EncryptionKey {
  id: string;
  /** 32 raw bytes (AES-256). */
  key: Buffer;
}

export interface Config {
  port: number;
  host: string;
  /** Absolute path of the data directory (SQLite file, generated sandbox key). */
  dataDir: string;
  region: Region;
  /** Public base URLs of both regions, used to point a token of the other region at its home. */
  publicUrls: Partial<Record<Region, string>>;
  /** Sandbox CRMs and the generated development key; on unless NODE_ENV=production (never on in production). */
  sandbox: boolean;
  /** A TLS-terminating proxy sits in front (`CRM_PROXY_BEHIND_TLS`): plain-http public URLs are then allowed in production. */
  behindTls: boolean;
  /**
   * Connections may reach a CRM over plain http (sandbox connections only): always outside
   * production; in production only with `CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true` (a private network).
   */
  plainHttpCrm?: boolean;
  /** Timeouts and connection caps of the HTTP server. */
  limits: ServerLimits;
  /** Idempotency keys and jobs: retention and lease (absent in a hand-built Config: the defaults). */
  durable?: DurableSettings;
  /** Per-token rate limit, per-connection concurrency, body limit, CRM call deadlines. */
  capacity: CapacityLimits;
  /** The /metrics listener (`CRM_PROXY_METRICS_*`); off without a port. */
  metrics: MetricsConfig;
  /** OpenTelemetry tracing (`OTEL_EXPORTER_OTLP_ENDPOINT`); undefined: off. */
  tracing: TracingConfig | undefined;
  nodeEnv: string;
  production: boolean;
  databaseUrl: string | undefined;
  /** `redis://…` (`REDIS_URL`): share rate limits, pacing and cache notices across instances; absent: per instance. */
  redisUrl?: string | undefined;
  /** Longest wait on one Redis command before the instance falls back to its own limits (`CRM_PROXY_REDIS_TIMEOUT_MS`). */
  redisTimeoutMs?: number;
  encryption: { keys: EncryptionKey[]; activeKeyId: string | undefined };
  /**
   * Each registered CRM's own settings by provider id, read by the declaration in its folder
   * (`providers/<crm>/settings.ts`); `settingsOf(config.providers, module)` types one.
   */
  providers: Readonly<Record<string, unknown>>;
  /** Ports of the in-process sandboxes (`CRM_PROXY_SANDBOX_SF_PORT` / `_HS_PORT`, default PORT+1 / PORT+2). */
  sandboxPorts: { salesforce: number; hubspot: number };
  /**
   * Keep both sandboxes' state (records, schema, OAuth grants) in the data directory across
   * restarts (`CRM_PROXY_SANDBOX_PERSIST`, default on; absent in a hand-built Config: off).
   */
  sandboxPersist?: boolean;
  /** The browser connect flow. */
  connect: {
    /** How long a connect link works (`CRM_PROXY_CONNECT_LINK_TTL_HOURS`, default 24). */
    linkTtlMs: number;
    /** The service's name on the account owner's pages (`CRM_PROXY_SERVICE_NAME`; default: the public URL's host). */
    serviceName?: string | undefined;
    /** A logo shown beside it (`CRM_PROXY_SERVICE_LOGO_URL`, https). */
    logoUrl?: string | undefined;
  };
  logLevel: LogLevel;
  /**
   * Where JSON log lines go (`LOG_FILE`): a file path, `-` for stdout. Unset: stdout, except that
   * `crm-proxy serve` in a terminal writes them to `<data dir>/crm-proxy.log`.
   */
  logFile?: string | undefined;
  /** Days the request log keeps an entry (`CRM_PROXY_REQUEST_LOG_DAYS`, default 7). */
  requestLogDays: number;
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** `CRM_PROXY_ENCRYPTION_KEYS="kid1:<base64 32 bytes>,kid2:…"`. */
export function parseEncryptionKeys(
  raw: string | undefined,
  name = 'CRM_PROXY_ENCRYPTION_KEYS',
): EncryptionKey[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys: EncryptionKey[] = [];
  for (const [i, part] of raw.split(',').entries()) {
    const entry = part.trim();
    if (entry === '') continue;
    const sep = entry.indexOf(':');
    const id = sep > 0 ? entry.slice(0, sep) : '';
    if (!KEY_ID.test(id)) {
      throw new ConfigError(
        `${name}: entry ${i + 1} must look like <key id>:<base64 key> (key id: letters, digits, _.-)`,
      );
    }
    const b64 = entry.slice(sep + 1);
    const key = Buffer.from(b64, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || key.length !== 32) {
      throw new ConfigError(
        `${name}: key "${id}" must be 32 bytes encoded in base64 (openssl rand -base64 32)`,
      );
    }
    if (keys.some((k) => k.id === id)) throw new ConfigError(`${name}: key id "${id}" appears twice`);
    keys.push({ id, key });
  }
  return keys;
}

function redisUrl(env: Env): string | undefined {
  const value = str(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(value) || !URL.canParse(value)) {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL (redis://host:6379/0)');
  }
  return value;
}

/** The sandboxes' ports: by default the two after the service's (any free one when it takes any). */
function sandboxPorts(env: Env, p: ConfigProblems, servicePort: number): Config['sandboxPorts'] {
  const next = (k: number) => (servicePort === 0 ? 0 : servicePort + k);
  return {
    salesforce: p.take(() => port(env, 'CRM_PROXY_SANDBOX_SF_PORT', next(1)), 0),
    hubspot: p.take(() => port(env, 'CRM_PROXY_SANDBOX_HS_PORT', next(2)), 0),
  };
}

/**
 * The configuration of a service running `modules` (the built-in CRMs unless a build or a test
 * registers others): the core variables, then every module's own settings declaration.
 */
export function loadConfig(
  env: Env = process.env,
  modules: readonly SettingsSource[] = BUILT_IN_PROVIDERS,
): Config {
  // Every variable is parsed even after a bad one, and all the problems are reported together.
  const p = new ConfigProblems();
  const nodeEnv = str(env, 'NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';
  const encryption = encryptionSettings(env, p);
  const servicePort = p.take(() => port(env, 'PORT', 8080), 8080);
  const publicUrls = omitUndefined({
    eu: p.take(() => url(env, 'CRM_PROXY_PUBLIC_URL_EU'), undefined),
    us: p.take(() => url(env, 'CRM_PROXY_PUBLIC_URL_US'), undefined),
  });
  const sandboxRequested =
    str(env, 'CRM_PROXY_SANDBOX') === undefined
      ? undefined
      : p.take(() => bool(env, 'CRM_PROXY_SANDBOX', false), undefined);
  const behindTls = p.take(() => bool(env, 'CRM_PROXY_BEHIND_TLS', false), false);
  const plainHttpCrm = p.take(() => bool(env, 'CRM_PROXY_ALLOW_PLAIN_HTTP_CRM', false), false) || !production;
  const { providers, crmUrls } = providerSettings(env, p, modules);
  for (const problem of productionProblems({
    production,
    sandboxRequested,
    publicUrls,
    behindTls,
    crmUrls: plainHttpCrm ? {} : crmUrls,
  }))
    p.add(problem);
  const config: Config = {
    port: servicePort,
    host: str(env, 'HOST') ?? '127.0.0.1',
    dataDir: resolve(str(env, 'CRM_PROXY_DATA_DIR') ?? './data'),
    region: p.take(() => oneOf(env, 'CRM_PROXY_REGION', REGIONS, 'eu'), 'eu'),
    publicUrls,
    sandbox: sandboxRequested ?? !production,
    behindTls,
    plainHttpCrm,
    limits: p.take(() => parseServerLimits(env), DEFAULT_SERVER_LIMITS),
    capacity: p.take(() => parseCapacity(env), DEFAULT_CAPACITY),
    metrics: p.take(() => parseMetricsConfig(env), { port: undefined, host: '127.0.0.1', token: undefined }),
    tracing: p.take(() => parseTracingConfig(env), undefined),
    durable: p.take(() => parseDurable(env), DEFAULT_DURABLE),
    nodeEnv,
    production,
    databaseUrl: str(env, 'DATABASE_URL'),
    redisUrl: p.take(() => redisUrl(env), undefined),
    redisTimeoutMs: p.take(
      () => wholeNumber(env, 'CRM_PROXY_REDIS_TIMEOUT_MS', 500, 10, 10_000, 'milliseconds'),
      500,
    ),
    encryption,
    providers,
    sandboxPorts: sandboxPorts(env, p, servicePort),
    sandboxPersist: p.take(() => bool(env, 'CRM_PROXY_SANDBOX_PERSIST', true), true),
    connect: {
      linkTtlMs: p.take(() => hours(env, 'CRM_PROXY_CONNECT_LINK_TTL_HOURS', 24), 24) * 3_600_000,
      serviceName: p.take(() => serviceName(env), undefined),
      logoUrl: p.take(() => logoUrl(env, production), undefined),
    },
    logLevel: p.take(() => oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'), 'info'),
    logFile: str(env, 'LOG_FILE')?.trim() || undefined,
    requestLogDays: p.take(() => wholeNumber(env, 'CRM_PROXY_REQUEST_LOG_DAYS', 7, 1, 3650, 'days'), 7),
  };
  p.throwIfAny();
  return config;
}

/** `CRM_PROXY_SERVICE_NAME`: one line of at most 80 characters. */
function serviceName(env: Env): string | undefined {
  const v = str(env, 'CRM_PROXY_SERVICE_NAME')?.trim();
  if (v === undefined || v === '') return undefined;
  if (v.length > 80 || [...v].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127))
    throw new ConfigError('CRM_PROXY_SERVICE_NAME must be one line of at most 80 characters');
  return v;
}

/** `CRM_PROXY_SERVICE_LOGO_URL`: an https URL (http is accepted outside production). */
function logoUrl(env: Env, production: boolean): string | undefined {
  const v = url(env, 'CRM_PROXY_SERVICE_LOGO_URL');
  if (v !== undefined && production && !v.startsWith('https://'))
    throw new ConfigError('CRM_PROXY_SERVICE_LOGO_URL must be an https URL in production');
  return v;
}

/** The encryption keys and the one new secrets are sealed with; a bad key list is reported once. */
function encryptionSettings(env: Env, p: ConfigProblems): Config['encryption'] {
  const before = p.count;
  const keys = p.take(() => parseEncryptionKeys(env['CRM_PROXY_ENCRYPTION_KEYS']), []);
  const keysParsed = p.count === before;
  let activeKeyId = str(env, 'CRM_PROXY_ENCRYPTION_KEY_ID');
  // Checked against the keys only when they parsed: a bad key list is reported once, above.
  if (keysParsed && activeKeyId !== undefined && !keys.some((k) => k.id === activeKeyId)) {
    p.add('CRM_PROXY_ENCRYPTION_KEY_ID names a key that is not in CRM_PROXY_ENCRYPTION_KEYS');
  }
  if (activeKeyId === undefined && keys.length > 1) {
    p.add('CRM_PROXY_ENCRYPTION_KEY_ID is required when CRM_PROXY_ENCRYPTION_KEYS holds several keys');
  }
  activeKeyId ??= keys[0]?.id;
  return { keys, activeKeyId };
}

/** Every module's own settings, and the CRM URLs they set (for the production check). */
function providerSettings(env: Env, p: ConfigProblems, modules: readonly SettingsSource[]) {
  const providers: Record<string, unknown> = {};
  const crmUrls: Record<string, string> = {};
  for (const module of modules) {
    const read = readSettings(module.settings, env, p);
    providers[module.profile.id] = read.value;
    Object.assign(crmUrls, read.crmUrls);
  }
  return { providers, crmUrls };
}

function omitUndefined<T extends Record<string, string | undefined>>(o: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<
    Record<keyof T, string>
  >;
}
