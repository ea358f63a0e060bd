import type { IncomingHttpHeaders } from 'node:http';

/** Request headers a client may pass on to the CRM; all others (above all `Authorization` and cookies) stay behind. */
const COMMON_REQUEST_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-encoding',
  'content-language',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
]);

/** A CRM's own option headers, named by its provider: exact names and prefixes, lower case. */
export interface HeaderRules {
  names: readonly string[];
  prefixes: readonly string[];
}

export function forwardedRequestHeaders(
  incoming: IncomingHttpHeaders,
  crmHeaders: HeaderRules,
): Record<string, string> {
  const own = (name: string) =>
    crmHeaders.names.includes(name) || crmHeaders.prefixes.some((prefix) => name.startsWith(prefix));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (COMMON_REQUEST_HEADERS.has(lower) || own(lower)) {
      out[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return out;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the answer. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const NONE: ReadonlySet<string> = new Set();

/** The header names a `Connection` header lists (they are hop-by-hop for this answer). */
function namedByConnection(value: string | string[] | undefined): ReadonlySet<string> {
  // The usual value names only a header that is hop-by-hop anyway: no set to build per answer.
  if (value === undefined || value === 'keep-alive') return NONE;
  return new Set(
    String(value)
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}

/** The CRM's response headers for the client, less hop-by-hop ones and `Set-Cookie`; `X-Request-Id` → `X-CRM-Request-Id`. */
export function returnedResponseHeaders(
  incoming: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const connectionListed = namedByConnection(incoming['connection']);
  const out: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || connectionListed.has(lower) || lower === 'set-cookie') continue;
    out[lower === 'x-request-id' ? 'x-crm-request-id' : lower] = value;
  }
  return out;
}
