// How long a client may take, and how many sockets it may hold: the bounds on every inbound
// connection, parsed from the environment with the rest of the configuration.
import { isIP } from 'node:net';
import { ConfigError, ConfigProblems } from './error.ts';
import { wholeNumber } from './read.ts';

type Env = Record<string, string | undefined>;

export interface ServerLimits {
  /** From the first byte of a request to the end of its headers (`CRM_PROXY_HEADERS_TIMEOUT_MS`). */
  headersTimeoutMs: number;
  /** From the first byte of a request to the end of its body (`CRM_PROXY_REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs: number;
  /** Longest silence while the client sends a body or reads an answer (`CRM_PROXY_BODY_IDLE_TIMEOUT_MS`). */
  bodyIdleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (`CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS`). */
  keepAliveTimeoutMs: number;
  /** Open connections in all (`CRM_PROXY_MAX_CONNECTIONS`); beyond it new ones are closed at once. */
  maxConnections: number;
  /** Open connections from one client address (`CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT`); 0: no cap. */
  maxConnectionsPerClient: number;
  /** Addresses the per-client cap does not apply to (`CRM_PROXY_CONNECTION_CAP_EXEMPT`). */
  connectionCapExempt: { loopback: boolean; addresses: string[] };
}

/**
 * Defaults. Headers arrive in one packet from any real client; 10 s covers a slow mobile link.
 * 5 minutes for a whole request lets a large pass-through upload through on a slow link (an 8 MiB
 * JSON body needs about 0.2 Mbit/s). 30 s of silence mid-body is longer than any TCP
 * retransmission stall. The keep-alive timeout is above the 60 s idle timeout of nginx and the
 * common load balancers, so the proxy in front closes an idle connection first and never sends a
 * request on one this service is closing.
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 300_000,
  bodyIdleTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 4096,
  maxConnectionsPerClient: 256,
  connectionCapExempt: { loopback: true, addresses: [] },
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** `loopback` (the default), `none`, or a comma-separated list of IP addresses, `loopback` allowed in it. */
function exemptions(env: Env, name: string): ServerLimits['connectionCapExempt'] {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return DEFAULT_SERVER_LIMITS.connectionCapExempt;
  if (v.toLowerCase() === 'none') return { loopback: false, addresses: [] };
  const out: ServerLimits['connectionCapExempt'] = { loopback: false, addresses: [] };
  for (const part of v.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    if (entry.toLowerCase() === 'loopback') out.loopback = true;
    else if (isIP(entry) !== 0) out.addresses.push(entry.toLowerCase());
    else
      throw new ConfigError(`${name} must be "loopback", "none" or a comma-separated list of IP addresses`);
  }
  return out;
}

export function parseServerLimits(env: Env): ServerLimits {
  const d = DEFAULT_SERVER_LIMITS;
  // Every bad value is collected, then reported together.
  const p = new ConfigProblems();
  const ms = (name: string, fallback: number) =>
    p.take(() => wholeNumber(env, name, fallback, 100, DAY_MS, 'milliseconds'), fallback);
  const connections = (name: string, fallback: number, min: number) =>
    p.take(() => wholeNumber(env, name, fallback, min, 1_000_000, 'connections'), fallback);
  const limits: ServerLimits = {
    headersTimeoutMs: ms('CRM_PROXY_HEADERS_TIMEOUT_MS', d.headersTimeoutMs),
    requestTimeoutMs: ms('CRM_PROXY_REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    bodyIdleTimeoutMs: ms('CRM_PROXY_BODY_IDLE_TIMEOUT_MS', d.bodyIdleTimeoutMs),
    keepAliveTimeoutMs: ms('CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs),
    maxConnections: connections('CRM_PROXY_MAX_CONNECTIONS', d.maxConnections, 1),
    maxConnectionsPerClient: connections(
      'CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT',
      d.maxConnectionsPerClient,
      0,
    ),
    connectionCapExempt: p.take(
      () => exemptions(env, 'CRM_PROXY_CONNECTION_CAP_EXEMPT'),
      d.connectionCapExempt,
    ),
  };
  // Node refuses a header deadline beyond the whole-request one; say so in our words.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    p.add('CRM_PROXY_HEADERS_TIMEOUT_MS must not be larger than CRM_PROXY_REQUEST_TIMEOUT_MS');
  }
  p.throwIfAny();
  return limits;
}
