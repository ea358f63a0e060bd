/** Header names whose values never reach a log. */
const SECRET_HEADERS = new Set([
  'authorization',
  'cookie',
  'set-cookie',
  'x-sfdc-session',
  'proxy-authorization',
]);

/** Query and form parameters that carry secrets (OAuth grants, HubSpot's legacy `hapikey`, signatures). */
const SECRET_PARAMS = [
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'code',
  'code_verifier',
  'token',
  'hapikey',
  'api_key',
  'apikey',
  'password',
  'assertion',
  'signature',
  'sig',
  'session_id',
  'sessionid',
];

export const REDACTED = '[redacted]';

/** A token carried in a path (`/oauth/v1/access-tokens/{token}`, `/oauth/v1/refresh-tokens/{token}`). */
const TOKEN_IN_PATH = /(\/(?:access|refresh)-tokens\/)[^/]+/i;

/** A URL with secret query parameters replaced, for logs. Unparseable input is dropped entirely. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const name of SECRET_PARAMS) {
      if (parsed.searchParams.has(name)) parsed.searchParams.set(name, REDACTED);
    }
    parsed.username = '';
    parsed.password = '';
    parsed.pathname = parsed.pathname.replace(TOKEN_IN_PATH, `$1${REDACTED}`);
    return parsed.toString();
  } catch {
    return REDACTED;
  }
}

const SECRET_TEXT = new RegExp(`("?(?:${SECRET_PARAMS.join('|')})"?\\s*[:=]\\s*"?)([^"&\\s,}]+)`, 'gi');
const BEARER = /\b(Bearer|OAuth)\s+[A-Za-z0-9._~+/!=-]+/g;
/** The service's own API tokens, wherever they appear. */
const API_TOKEN = /\bcrmp_[a-z]{2}_[0-9A-Za-z]+/g;

/** Text (an outbound error body, a message) with token-like values masked. */
export function redactText(text: string): string {
  return text
    .replace(SECRET_TEXT, `$1${REDACTED}`)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(API_TOKEN, REDACTED);
}

/** Credential shapes: the service's API tokens, HubSpot private-app tokens, any run of 40+ letters and digits. */
const TOKEN_SHAPED = /crmp_[a-z]{2}_[0-9A-Za-z]+|pat-[a-z]{2,3}\d?-[0-9a-f-]{16,}|[0-9A-Za-z]{40,}/gi;

/**
 * Whether TOKEN_SHAPED can match at all: one of its prefixes, or 40 letters and digits from the start
 * of a run. Tried at run starts only, it is linear, where TOKEN_SHAPED retries at every character.
 */
const MAY_HOLD_TOKEN = /crmp_|pat-|(?<![0-9A-Za-z])[0-9A-Za-z]{40}/i;

/** True when a client-chosen value (an `X-Request-Id`) looks like a credential rather than an id. */
export function looksLikeToken(value: string): boolean {
  if (!MAY_HOLD_TOKEN.test(value)) return false;
  TOKEN_SHAPED.lastIndex = 0;
  return TOKEN_SHAPED.test(value);
}

/** A path with credential-shaped segments masked (a token pasted into the URL). */
export function maskTokens(path: string): string {
  return MAY_HOLD_TOKEN.test(path) ? path.replace(TOKEN_SHAPED, REDACTED) : path;
}

/** A raw query separator, or one percent-encoded inside a pass-through target. */
const QUERY_START = /\?|%3f/i;

/** A request path for the request log, its query (`?` or `%3F`) masked: any parameter may carry a secret. */
export function redactRequestUrl(url: string): string {
  const at = url.search(QUERY_START);
  const path = at === -1 ? url : url.slice(0, at);
  // A connect link's secret is its last path segment.
  const shown = maskTokens(path.replace(CONNECT_LINK_PATH, `$1${REDACTED}`));
  return at === -1 ? shown : `${shown}?${REDACTED}`;
}

const CONNECT_LINK_PATH = /^(\/connect\/)[^/]+/;

/** Fields masked one level down in anything logged (`{ grant: { accessToken } }`). */
const SECRET_FIELDS = [
  'authorization',
  'accessToken',
  'refreshToken',
  'access_token',
  'refresh_token',
  'client_secret',
  'token',
] as const;

function masked(value: object, fields: Iterable<string>): Record<string, unknown> | undefined {
  let copy: Record<string, unknown> | undefined;
  for (const field of fields) {
    if ((value as Record<string, unknown>)[field] !== undefined) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[field] = REDACTED;
    }
  }
  return copy;
}

/**
 * The logged object with `SECRET_FIELDS` masked in each value and `SECRET_HEADERS` in a plain `req`/`res`
 * (copied only where found): cheaper than pino's wildcard redact paths on every line.
 */
export function maskSecretFields(obj: Record<string, unknown>): Record<string, unknown> {
  let out = obj;
  for (const key in obj) {
    const value = obj[key];
    if (value === null || typeof value !== 'object' || value instanceof Error) continue;
    let copy = masked(value, SECRET_FIELDS);
    // Plain objects only: a Fastify request's `headers` is a getter, and its serializer writes none.
    if ((key === 'req' || key === 'res') && Object.getPrototypeOf(value) === Object.prototype) {
      const headers = (value as { headers?: unknown }).headers;
      const hidden =
        typeof headers === 'object' && headers !== null ? masked(headers, SECRET_HEADERS) : undefined;
      if (hidden !== undefined) copy = { ...(copy ?? value), headers: hidden };
    }
    if (copy !== undefined) {
      if (out === obj) out = { ...obj };
      out[key] = copy;
    }
  }
  return out;
}

/** The pino options that keep secrets out of the service's log lines. */
export const LOG_REDACTION = { formatters: { log: maskSecretFields } };

const SECRET_KEYS = new Set([
  ...SECRET_PARAMS,
  'authorization',
  'accesstoken',
  'refreshtoken',
  'clientsecret',
  'private_app_token',
]);

/** A JSON value with secret-looking keys masked and token-like text redacted (CRM error bodies). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : redactValue(v, depth + 1);
  }
  return out;
}
