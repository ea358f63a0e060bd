// Environment → typed Config, from the service's declarations and each registered CRM's.
import { isIP } from 'node:net';
import { BUILT_IN_PROVIDERS } from '../providers/index.ts';
import { SERVICE_SETTINGS } from './service.ts';
import { ConfigError, readSettings, type SettingsDeclaration } from './settings.ts';

export { ConfigError } from './settings.ts';

export type Config = ReturnType<typeof loadConfig>;
export type ServerLimits = Config['limits'];

/** `localhost`, 127.0.0.0/8 and ::1: a plain-http URL there never crosses a network. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 4) return host.startsWith('127.');
  return /^((.+\.)?localhost|::1|0:0:0:0:0:0:0:1)$/i.test(host);
}

/** Settings that must agree, and what production refuses; throws every problem, `problems` first. */
export function checkConfig(c: Config, problems: string[] = []): void {
  const { rateLimit } = c.capacity;
  if (rateLimit !== null && rateLimit.burst < rateLimit.perSecond)
    problems.push('CRM_PROXY_RATE_LIMIT_BURST must be at least CRM_PROXY_RATE_LIMIT_PER_SECOND');
  // Node refuses a header deadline beyond the whole-request one; say so in our words.
  if (c.limits.headersTimeoutMs > c.limits.requestTimeoutMs)
    problems.push('CRM_PROXY_HEADERS_TIMEOUT_MS must not be larger than CRM_PROXY_REQUEST_TIMEOUT_MS');
  const { jobSweepMs: sweep, jobLeaseMs: lease } = c.durable;
  if (sweep * 2 >= lease)
    problems.push(
      `CRM_PROXY_JOB_SWEEP_MS (${sweep}) must be under half of CRM_PROXY_JOB_LEASE_MS (${lease}): a job is resumed within the lease only if the sweep runs more often; lower the sweep or raise the lease`,
    );
  const { port, host, token } = c.metrics;
  if (token !== undefined && /^REPLACE_WITH/i.test(token))
    problems.push(
      'CRM_PROXY_METRICS_TOKEN is still the placeholder of deploy/env.example: set it to `openssl rand -hex 16`',
    );
  // Off loopback, anyone who reaches the port could read the metrics: a token is required there.
  if (port !== undefined && token === undefined && !isLoopbackHost(host))
    problems.push(
      'CRM_PROXY_METRICS_TOKEN is required when CRM_PROXY_METRICS_HOST is not a loopback address: set a token (openssl rand -hex 16) or CRM_PROXY_METRICS_HOST=127.0.0.1',
    );
  const { keys, activeKeyId } = c.encryption;
  if (activeKeyId === undefined && keys.length > 1)
    problems.push(
      'CRM_PROXY_ENCRYPTION_KEY_ID is required when CRM_PROXY_ENCRYPTION_KEYS holds several keys',
    );
  else if (activeKeyId !== undefined && !keys.some((k) => k.id === activeKeyId))
    problems.push('CRM_PROXY_ENCRYPTION_KEY_ID names a key that is not in CRM_PROXY_ENCRYPTION_KEYS');
  if (c.production && c.connect.logoUrl?.startsWith('https://') === false)
    problems.push('CRM_PROXY_SERVICE_LOGO_URL must be an https URL in production');
  if (c.production && c.sandbox)
    problems.push(
      'CRM_PROXY_SANDBOX cannot be on when NODE_ENV=production: the sandbox CRMs, their /__sandbox control API and the generated development key are for development only. Unset CRM_PROXY_SANDBOX, or unset NODE_ENV to try the sandbox.',
    );
  for (const [region, value] of Object.entries(c.publicUrls)) {
    const url = value === undefined ? undefined : new URL(value);
    if (c.production && !c.behindTls && url?.protocol === 'http:' && !isLoopbackHost(url.hostname))
      problems.push(
        `CRM_PROXY_PUBLIC_URL_${region.toUpperCase()} is a plain http:// URL, which would carry API tokens unencrypted. With NODE_ENV=production use an https:// URL, or set CRM_PROXY_BEHIND_TLS=true if a proxy in front terminates TLS.`,
      );
  }
  if (problems.length > 0) throw new ConfigError(...problems);
}

/** The configuration of a service running `modules`: the service's settings, then each module's. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  modules: readonly { profile: { id: string }; settings: SettingsDeclaration }[] = BUILT_IN_PROVIDERS,
) {
  const problems: string[] = [];
  const s = readSettings(SERVICE_SETTINGS, env, problems);
  /** Connections may reach a CRM over plain http: always outside production, else by opt-in. */
  const plainHttpCrm = s.plainHttpCrm || !s.production;
  const providers = Object.fromEntries(
    modules.map((m) => [m.profile.id, readSettings(m.settings, env, problems, !plainHttpCrm)] as const),
  );
  const { rate, tracing, encryptionKeys: keys = [], encryptionKeyId: id, ...rest } = s;
  const config = {
    ...rest,
    /** Sandbox CRMs and the generated development key: never in production. */
    sandbox: s.sandbox ?? !s.production,
    plainHttpCrm,
    capacity: {
      ...s.capacity,
      /** Per API token: a token bucket refilled at `perSecond`, holding `burst`; null: no limit. */
      rateLimit:
        rate.perSecond === 0 ? null : { ...rate, burst: rate.burst ?? Math.max(2000, rate.perSecond) },
    },
    durable: {
      ...s.durable,
      jobSweepMs: s.durable.jobSweepMs ?? Math.min(5000, Math.floor(s.durable.jobLeaseMs / 3)),
    },
    /** OpenTelemetry tracing; undefined: off. */
    tracing: tracing.endpoint === undefined ? undefined : { ...tracing, endpoint: tracing.endpoint },
    /** The keys, and the one new secrets are sealed with (the only key, when there is one). */
    encryption: { keys, activeKeyId: id ?? (keys.length === 1 ? keys[0]?.id : undefined) },
    /** Each registered CRM's settings by provider id; `settingsOf(config.providers, module)` types one. */
    providers: providers as Readonly<Record<string, unknown>>,
  };
  checkConfig(config, problems);
  return config;
}
