// Where /metrics is served: its own listener, off the API port, so the load balancer never
// exposes it. Off unless CRM_PROXY_METRICS_PORT is set; loopback unless told otherwise, and then
// a bearer token can be required.
import { ConfigError, ConfigProblems } from './error.ts';
import { isLoopbackHost } from './production.ts';

type Env = Record<string, string | undefined>;

export interface MetricsConfig {
  /** `CRM_PROXY_METRICS_PORT`; undefined: no metrics. */
  port: number | undefined;
  /** `CRM_PROXY_METRICS_HOST`, default 127.0.0.1. */
  host: string;
  /** `CRM_PROXY_METRICS_TOKEN`: when set, scrapes must send `Authorization: Bearer <token>`. */
  token: string | undefined;
}

export function parseMetricsConfig(env: Env): MetricsConfig {
  const p = new ConfigProblems();
  const portText = env['CRM_PROXY_METRICS_PORT']?.trim();
  const port = p.take(() => {
    if (portText === undefined || portText === '') return undefined;
    const n = Number(portText);
    if (!Number.isInteger(n) || n < 0 || n > 65535)
      throw new ConfigError('CRM_PROXY_METRICS_PORT must be a port number (0-65535)');
    return n;
  }, undefined);
  const token = env['CRM_PROXY_METRICS_TOKEN']?.trim() || undefined;
  if (token !== undefined && token.length < 16)
    p.add('CRM_PROXY_METRICS_TOKEN must be at least 16 characters (openssl rand -hex 16)');
  if (token !== undefined && /^REPLACE_WITH/i.test(token))
    p.add(
      'CRM_PROXY_METRICS_TOKEN is still the placeholder of deploy/env.example: set it to `openssl rand -hex 16`',
    );
  const host = env['CRM_PROXY_METRICS_HOST']?.trim() || '127.0.0.1';
  // Off loopback, anyone who reaches the port could read the metrics: a token is required there.
  if (port !== undefined && token === undefined && !isLoopbackHost(host))
    p.add(
      'CRM_PROXY_METRICS_TOKEN is required when CRM_PROXY_METRICS_HOST is not a loopback address: set a token (openssl rand -hex 16) or CRM_PROXY_METRICS_HOST=127.0.0.1',
    );
  p.throwIfAny();
  return { port, host, token };
}

/** OpenTelemetry tracing: on when OTEL_EXPORTER_OTLP_ENDPOINT names a collector (OTLP over HTTP). */
export interface TracingConfig {
  endpoint: string;
  /** `OTEL_SERVICE_NAME`, default `crm-proxy`. */
  serviceName: string;
}

export function parseTracingConfig(env: Env): TracingConfig | undefined {
  const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (endpoint === undefined || endpoint === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ConfigError(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be the http:// or https:// base URL of an OTLP collector (e.g. http://127.0.0.1:4318)',
    );
  return { endpoint, serviceName: env['OTEL_SERVICE_NAME']?.trim() || 'crm-proxy' };
}
