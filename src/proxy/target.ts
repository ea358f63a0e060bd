import type { Connection } from '../domain/connection.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter } from '../providers/adapter.ts';

interface Origin {
  scheme: 'http' | 'https';
  /** Lower-case host name exactly as allowed (no trailing dot). */
  host: string;
  /** '' for the scheme's default port. */
  port: string;
}

export interface ProxyTargets {
  /** Origins a target may name; all of them lead to `destination`. */
  allowed: Origin[];
  /** Where requests really go: the connection's API base URL (the sandbox for sandbox connections). */
  destination: string;
}

export interface ResolvedTarget {
  url: string;
  /** The path as the client wrote it (for logs and the Bulk 1.0 session header). */
  path: string;
}

const DEFAULT_PORT = { http: '80', https: '443' } as const;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

function originOf(url: string): Origin {
  const parsed = new URL(url);
  const scheme = parsed.protocol === 'http:' ? 'http' : 'https';
  return { scheme, host: parsed.hostname.toLowerCase(), port: parsed.port };
}

function show(o: Origin): string {
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return `${o.scheme}://${host}${o.port === '' ? '' : `:${o.port}`}`;
}

/** The origins a connection's pass-through may name (its CRM host, plus the provider's public hosts for it). */
export function proxyTargets(
  adapter: Pick<CrmAdapter, 'defaultApiBaseUrl' | 'handlers'>,
  connection: Connection,
): ProxyTargets {
  // Once per connection object: the token cache hands out a new one when the connection changes.
  const known = targetsOf.get(connection);
  if (known !== undefined) return known;
  const destination = adapter.defaultApiBaseUrl(connection).replace(/\/+$/, '');
  const extra = adapter.handlers.passthrough?.publicOrigins(connection) ?? [];
  const allowed = [originOf(destination), ...extra.map(originOf)];
  // Plain http only ever reaches a sandbox connection's own local URL.
  const usable = allowed.filter((o) => o.scheme === 'https' || connection.sandbox);
  const unique = usable.filter((o, i) => usable.findIndex((p) => show(p) === show(o)) === i);
  const targets = { allowed: unique, destination };
  targetsOf.set(connection, targets);
  return targets;
}

const targetsOf = new WeakMap<Connection, ProxyTargets>();

// Anything a URL parser could read two ways is refused outright rather than interpreted.
const FORBIDDEN_CHARS = /[^\x21-\x7e]|[\\#]/;
// Encoded `/`, `\`, `.` and `%` itself (double encoding), and NUL: separators hidden from one parser but not another.
const ENCODED_SEPARATOR = /%(?:2f|5c|2e|25|00)/i;
const FULL_URL = /^([a-z][a-z0-9+.-]*):\/\/?([^/]*)(\/.*)?$/is;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
// Host names only: ASCII letters, digits and inner hyphens in dot-separated labels, optional port.
// This alone refuses user-info (`@`), IPv6 literals (`[`), percent-encoding, unicode and trailing dots.
const AUTHORITY =
  /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::(\d{1,5}))?$/i;

/**
 * The URL to call for a pass-through target (`rawTarget` not percent-decoded, `query` raw with its `?`,
 * or ''); throws `400 target_not_allowed` before anything leaves the service.
 */
export function resolveTarget(targets: ProxyTargets, rawTarget: string, query: string): ResolvedTarget {
  const refuse = (why: string) =>
    new ApiError(
      'target_not_allowed',
      `The pass-through target is not allowed: ${why}. Targets must be on ${targets.allowed.map(show).join(' or ')}, or a path starting with /.`,
      {
        details: [{ path: '/target_url', allowed_origins: targets.allowed.map(show) }],
      },
    );

  let target = rawTarget;
  // A target sent fully percent-encoded (`https%3A%2F%2F…`) is decoded once, then checked like any other.
  if (/^https?%3a%2f%2f/i.test(target)) {
    try {
      target = decodeURIComponent(target);
    } catch {
      throw refuse('it is not valid percent-encoding');
    }
  }
  let innerQuery = '';
  const queryAt = target.indexOf('?');
  if (queryAt !== -1) {
    innerQuery = target.slice(queryAt + 1);
    target = target.slice(0, queryAt);
  }
  if (FORBIDDEN_CHARS.test(target))
    throw refuse('it contains spaces, backslashes, # or non-ASCII characters');
  if (ENCODED_SEPARATOR.test(target))
    throw refuse('it contains an encoded separator (%2F, %5C, %2E) or double encoding (%25)');

  let path: string;
  if (target.startsWith('/')) {
    if (target.startsWith('//')) throw refuse('a path must not start with //');
    path = target;
  } else {
    const match = FULL_URL.exec(target);
    if (match === null) {
      throw refuse(
        HAS_SCHEME.test(target)
          ? 'it is not an http(s) URL with a host'
          : 'it is neither a full URL nor a path starting with /',
      );
    }
    const scheme = (match[1] ?? '').toLowerCase();
    const authority = match[2] ?? '';
    path = match[3] ?? '/';
    if (scheme !== 'https' && scheme !== 'http')
      throw refuse(`the scheme ${scheme.slice(0, 20)} is not allowed`);
    const parts = AUTHORITY.exec(authority);
    if (parts === null) {
      throw refuse(
        'the host must be a plain host name (no user-info, IP literal in brackets, encoding or trailing dot)',
      );
    }
    const host = (parts[1] ?? '').toLowerCase();
    const rawPort = parts[2];
    const port =
      rawPort === undefined || Number(rawPort) === Number(DEFAULT_PORT[scheme])
        ? ''
        : String(Number(rawPort));
    const sameHost = targets.allowed.filter((o) => o.host === host);
    if (sameHost.length === 0) throw refuse(`host ${host.slice(0, 100)} is not the connection's CRM host`);
    if (!sameHost.some((o) => o.scheme === scheme))
      throw refuse(`the scheme must be ${sameHost.map((o) => o.scheme).join(' or ')}`);
    if (!sameHost.some((o) => o.scheme === scheme && o.port === port))
      throw refuse('another port is not allowed');
    // Defence in depth: the WHATWG parser must read the same origin we matched by hand.
    const parsed = new URL(`${scheme}://${authority}/`);
    if (parsed.hostname.toLowerCase() !== host || parsed.port !== port) throw refuse('the host is ambiguous');
  }
  if (DOT_SEGMENT.test(path)) {
    throw refuse('dot segments (. and ..) are not allowed in the path');
  }
  if (namesSandboxControl(path))
    throw refuse('the sandbox control API (/__sandbox) is not reachable through the service');
  const queries = [innerQuery, query.replace(/^\?/, '')].filter((q) => q !== '');
  const search = queries.length === 0 ? '' : `?${queries.join('&')}`;
  return { url: `${targets.destination}${path}${search}`, path };
}

/** The sandboxes' control API (faults, reset) is refused on every connection: one token could break it for all. */
const CONTROL_SEGMENT = '__sandbox';

/** True when `path` names the control API in any spelling a server may route alike (case, encoding, `;x`, undecodable). */
function namesSandboxControl(path: string): boolean {
  // Fast path: a path without `%` or the name needs no split.
  if (!path.includes('%') && !path.toLowerCase().includes(CONTROL_SEGMENT)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return decoded
    .toLowerCase()
    .split('/')
    .some((segment) => segment.startsWith(CONTROL_SEGMENT));
}
