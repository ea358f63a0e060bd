// The service's own settings (settings.ts says how); what each does, and why its default, is in
// docs/configuration.md.
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { type TSchema, Type } from 'typebox';
import { REGIONS } from '../domain/connection.ts';
import { absoluteUrl, decoded, flag, oneOf, port, text, whole } from './settings.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MIB = 1024 * 1024;
/** A number of hours or days, kept in milliseconds. */
const inMs = (schema: TSchema, unitMs: number) => decoded(schema, (n: number) => n * unitMs);
const ms = (env: string, fallback: number | undefined, min: number, max: number) =>
  whole(env, fallback, min, max, 'milliseconds');

// Settings whose checks take more words than a line holds.
const TOKEN = 'must be at least 16 characters (openssl rand -hex 16)';
const OTLP = 'must be the http:// or https:// base URL of an OTLP collector (e.g. http://127.0.0.1:4318)';
const REDIS = 'must be a redis:// or rediss:// URL (redis://host:6379/0)';
const LINK_TTL = {
  env: 'CRM_PROXY_CONNECT_LINK_TTL_HOURS',
  default: 24,
  exclusiveMinimum: 0,
  maximum: 720,
  problem: 'must be a number of hours above 0, at most 720 (30 days)',
};
const NAME = {
  problem: 'must be one line of at most 80 characters',
  maxLength: 80,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
};

/** `loopback`, `none`, or a comma-separated list of IP addresses (`loopback` allowed in it). */
const words = (list: string) =>
  list
    .toLowerCase()
    .split(/\s*,\s*/)
    .filter(Boolean);
const CAP_EXEMPT = decoded(
  text('CRM_PROXY_CONNECTION_CAP_EXEMPT', 'loopback', {
    problem: 'must be "loopback", "none" or a comma-separated list of IP addresses',
    check: (v: string) => v.toLowerCase() === 'none' || words(v).every((p) => p === 'loopback' || isIP(p)),
  }),
  (v: string) => ({ loopback: words(v).includes('loopback'), addresses: words(v).filter((p) => isIP(p)) }),
);

/** `kid1:<base64 32 bytes>,kid2:…` (AES-256 keys); each bad entry goes to `problems`, never its value. */
export function parseEncryptionKeys(raw: string, problems: string[], name = 'CRM_PROXY_ENCRYPTION_KEYS') {
  const keys: { id: string; key: Buffer }[] = [];
  for (const [i, entry] of raw.split(',').entries()) {
    if (entry.trim() === '') continue;
    const [, id, b64 = ''] = /^\s*([A-Za-z0-9_.-]{1,64}):(.*?)\s*$/.exec(entry) ?? [];
    const key = Buffer.from(b64, 'base64');
    if (id === undefined)
      problems.push(
        `${name}: entry ${i + 1} must look like <key id>:<base64 key> (key id: letters, digits, _.-)`,
      );
    else if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || key.length !== 32)
      problems.push(`${name}: key "${id}" must be 32 bytes encoded in base64 (openssl rand -base64 32)`);
    else if (keys.some((k) => k.id === id)) problems.push(`${name}: key id "${id}" appears twice`);
    else keys.push({ id, key });
  }
  return keys;
}

export const SERVICE_SETTINGS = Type.Object({
  production: decoded(text('NODE_ENV', 'development'), (env: string) => env === 'production'),
  port: port('PORT', 8080),
  host: text('HOST', '127.0.0.1'),
  dataDir: text('CRM_PROXY_DATA_DIR', './data', { decode: (dir: string) => resolve(dir) }),
  region: oneOf('CRM_PROXY_REGION', REGIONS, 'eu'),
  publicUrls: Type.Object({
    eu: Type.Optional(absoluteUrl({ env: 'CRM_PROXY_PUBLIC_URL_EU' })),
    us: Type.Optional(absoluteUrl({ env: 'CRM_PROXY_PUBLIC_URL_US' })),
  }),
  /** Unset: on unless NODE_ENV=production. */
  sandbox: Type.Optional(flag('CRM_PROXY_SANDBOX')),
  behindTls: flag('CRM_PROXY_BEHIND_TLS', false),
  plainHttpCrm: flag('CRM_PROXY_ALLOW_PLAIN_HTTP_CRM', false),
  /** Bounds on every inbound connection. */
  limits: Type.Object({
    headersTimeoutMs: ms('CRM_PROXY_HEADERS_TIMEOUT_MS', 10_000, 100, DAY_MS),
    requestTimeoutMs: ms('CRM_PROXY_REQUEST_TIMEOUT_MS', 300_000, 100, DAY_MS),
    bodyIdleTimeoutMs: ms('CRM_PROXY_BODY_IDLE_TIMEOUT_MS', 30_000, 100, DAY_MS),
    keepAliveTimeoutMs: ms('CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS', 65_000, 100, DAY_MS),
    maxConnections: whole('CRM_PROXY_MAX_CONNECTIONS', 4096, 1, 1_000_000, 'connections'),
    maxConnectionsPerClient: whole('CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT', 256, 0, 1_000_000, 'connections'),
    connectionCapExempt: CAP_EXEMPT,
  }),
  /** The per-token limit; a rate of 0 turns it off. An unset burst is 2000, or the rate when higher. */
  rate: Type.Object({
    perSecond: whole('CRM_PROXY_RATE_LIMIT_PER_SECOND', 200, 0, 1_000_000, 'requests per second'),
    burst: Type.Optional(whole('CRM_PROXY_RATE_LIMIT_BURST', undefined, 1, 10_000_000, 'requests')),
  }),
  /** How much work the service takes on, and the bounds of its calls to the CRMs. */
  capacity: Type.Object({
    connectionConcurrency: whole('CRM_PROXY_CONNECTION_CONCURRENCY', 16, 1, 1000, 'calls'),
    bodyLimitBytes: whole('CRM_PROXY_BODY_LIMIT_BYTES', 8 * MIB, 1024, 256 * MIB, 'bytes'),
    crmTimeoutMs: ms('CRM_PROXY_CRM_TIMEOUT_MS', 60_000, 1000, 600_000),
    crmConnectTimeoutMs: ms('CRM_PROXY_CRM_CONNECT_TIMEOUT_MS', 10_000, 100, 120_000),
    crmMaxAttempts: whole('CRM_PROXY_CRM_MAX_ATTEMPTS', 3, 1, 10, 'attempts'),
    replaySkipWindowMs: ms('CRM_PROXY_REPLAY_SKIP_WINDOW_MS', 60_000, 0, 3_600_000),
    replayBudgetBytes: whole('CRM_PROXY_REPLAY_BUDGET_BYTES', 64 * MIB, MIB, 16_384 * MIB, 'bytes'),
    placeLeaseMs: ms('CRM_PROXY_PLACE_LEASE_MS', 10_000, 100, 600_000),
  }),
  /** Idempotency keys and jobs: how long they are kept, and the job lease. */
  durable: Type.Object({
    idempotencyTtlMs: inMs(whole('CRM_PROXY_IDEMPOTENCY_TTL_HOURS', 24, 1, 720, 'hours'), HOUR_MS),
    jobRetentionMs: inMs(whole('CRM_PROXY_JOB_RETENTION_DAYS', 7, 1, 365, 'days'), DAY_MS),
    jobLeaseMs: ms('CRM_PROXY_JOB_LEASE_MS', 30_000, 500, 600_000),
    /** Unset: 5000, or a third of the lease when that is less. */
    jobSweepMs: Type.Optional(ms('CRM_PROXY_JOB_SWEEP_MS', undefined, 50, 300_000)),
    jobRecordsInFlight: whole('CRM_PROXY_JOB_RECORDS_IN_FLIGHT', 20_000, 1, 10_000_000, 'records'),
  }),
  /** The /metrics listener, off the API port: off without a port. */
  metrics: Type.Object({
    port: Type.Optional(port('CRM_PROXY_METRICS_PORT')),
    host: text('CRM_PROXY_METRICS_HOST', '127.0.0.1'),
    token: Type.Optional(text('CRM_PROXY_METRICS_TOKEN', undefined, { minLength: 16, problem: TOKEN })),
  }),
  tracing: Type.Object({
    endpoint: Type.Optional(absoluteUrl({ env: 'OTEL_EXPORTER_OTLP_ENDPOINT', problem: OTLP })),
    serviceName: text('OTEL_SERVICE_NAME', 'crm-proxy'),
  }),
  databaseUrl: Type.Optional(text('DATABASE_URL')),
  redisUrl: Type.Optional(absoluteUrl({ env: 'REDIS_URL', pattern: '^rediss?://\\S+$', problem: REDIS })),
  redisTimeoutMs: ms('CRM_PROXY_REDIS_TIMEOUT_MS', 500, 10, 10_000),
  authCacheTtlMs: ms('CRM_PROXY_AUTH_CACHE_TTL_MS', 60_000, 0, 3_600_000),
  encryptionKeys: Type.Optional(decoded(text('CRM_PROXY_ENCRYPTION_KEYS'), parseEncryptionKeys)),
  encryptionKeyId: Type.Optional(text('CRM_PROXY_ENCRYPTION_KEY_ID')),
  connect: Type.Object({
    linkTtlMs: inMs(Type.Number(LINK_TTL), HOUR_MS),
    serviceName: Type.Optional(text('CRM_PROXY_SERVICE_NAME', undefined, NAME)),
    /** https in production. */
    logoUrl: Type.Optional(absoluteUrl({ env: 'CRM_PROXY_SERVICE_LOGO_URL' })),
  }),
  logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  logFile: Type.Optional(text('LOG_FILE')),
  requestLogDays: whole('CRM_PROXY_REQUEST_LOG_DAYS', 7, 1, 3650, 'days'),
});
