import type { Clock } from '../lib/clock.ts';
import { redactText } from '../lib/redact.ts';
import type {
  AccessCheckOutcome,
  CodeExchangeOutcome,
  ConnectFacet,
  OAuthApp,
  OAuthClient,
  RefreshOutcome,
  TokenGrant,
} from './adapter.ts';
import type { HttpClient } from './client/http-client.ts';
import { OutboundNetworkError, type OutboundResponse, parseJson } from './client/types.ts';
import { unreachableAsCrmError } from './errors.ts';

/** The fields of an OAuth 2.0 token answer that either CRM sends. */
interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  /** RFC 6749's space-separated scope (Salesforce) or a list (HubSpot). */
  scope?: string;
  scopes?: string[];
  error?: string;
  error_description?: string;
  /** HubSpot's own error shape. */
  status?: string;
  message?: string;
}

/** Error codes meaning "this grant is dead": RFC 6749's, and HubSpot's own for each. */
const DEAD_GRANT = new Set(['invalid_grant', 'BAD_REFRESH_TOKEN', 'BAD_AUTH_CODE']);

/** Never resent: a code is single-use, and a rotated refresh token cannot be recovered by resending. */
function postToken(
  client: HttpClient,
  provider: string,
  url: string,
  app: OAuthClient,
  grant: Record<string, string>,
): Promise<OutboundResponse> {
  const form = { ...grant, client_id: app.clientId, client_secret: app.clientSecret };
  return client.send({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    idempotent: false,
    label: `${provider}.oauth.${grant['grant_type'] === 'refresh_token' ? 'refresh' : 'code'}`,
  });
}

/** `expires_in` becomes an absolute expiry on the clock. */
function grantOf(body: TokenAnswer, accessToken: string, clock: Pick<Clock, 'now'>): TokenGrant {
  const scope = typeof body.scope === 'string' ? body.scope : body.scopes?.join(' ');
  return {
    accessToken,
    ...(typeof body.expires_in === 'number'
      ? { accessTokenExpiresAt: new Date(clock.now() + body.expires_in * 1000).toISOString() }
      : {}),
    ...(scope === undefined ? {} : { scope }),
  };
}

/** The OAuth app a CRM's settings configure; null when either half is unset. */
export function configuredApp(settings: {
  clientId?: string | undefined;
  clientSecret?: string | undefined;
}): OAuthClient | null {
  const { clientId, clientSecret } = settings;
  return clientId === undefined || clientSecret === undefined ? null : { clientId, clientSecret };
}

/** The refresh-token grant (RFC 6749 §6). A refresh token that comes back different is a rotation. */
export async function refreshAccessToken(
  client: HttpClient,
  clock: Pick<Clock, 'now'>,
  provider: string,
  app: OAuthApp,
  refreshToken: string,
): Promise<RefreshOutcome> {
  const grant = { grant_type: 'refresh_token', refresh_token: refreshToken };
  const response = await unreachableAsCrmError(provider, 'token refresh', () =>
    postToken(client, provider, app.tokenUrl, app, grant),
  );
  const body = parseJson<TokenAnswer>(response);
  if (response.status === 200 && typeof body?.access_token === 'string') {
    const rotated = typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken;
    return {
      ok: true,
      grant: {
        ...grantOf(body, body.access_token, clock),
        ...(rotated ? { refreshToken: body.refresh_token } : {}),
      },
    };
  }
  if (response.status === 400 && DEAD_GRANT.has(body?.error ?? body?.status ?? '')) {
    return {
      ok: false,
      kind: 'invalid_grant',
      description: body?.error_description ?? body?.message ?? 'invalid_grant',
    };
  }
  return { ok: false, kind: 'failed', status: response.status, body: body ?? response.text.slice(0, 500) };
}

/** The GET of a connect check; a network failure is the check's failure, not thrown. */
export async function checkCall(
  client: HttpClient,
  crm: string,
  call: string,
  request: { url: string; headers: Record<string, string>; label: string },
): Promise<OutboundResponse | AccessCheckOutcome> {
  try {
    const headers = { accept: 'application/json', ...request.headers };
    return await client.send({ ...request, method: 'GET', headers, idempotent: true });
  } catch (error) {
    if (!(error instanceof OutboundNetworkError)) throw error;
    return {
      ok: false,
      description: `the ${call} call could not reach ${crm} (${error.kind.replace('_', ' ')})`,
    };
  }
}

/** A new object: `headers` is left as it is. */
export function bearer(headers: Record<string, string>, accessToken: string): Record<string, string> {
  return { ...headers, authorization: `Bearer ${accessToken}` };
}

/**
 * The consent page URL (RFC 6749 §4.1.1) with the CRM's own parameters (undefined ones left out)
 * and PKCE's S256 challenge, so a code redeemed by another flow is refused.
 */
export function authorizationUrl(
  endpoint: string,
  input: Parameters<ConnectFacet['authorizeUrl']>[1],
  own: { responseType?: boolean; params?: Record<string, string | undefined> } = {},
): string {
  const url = new URL(endpoint);
  if (own.responseType !== false) url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  for (const [name, value] of Object.entries(own.params ?? {}))
    if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('state', input.state);
  url.searchParams.set('code_challenge', input.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

interface CodeTokenAnswer extends TokenAnswer {
  instance_url?: string;
  id?: string;
}

/** The authorization-code grant (RFC 6749 §4.1.3, with RFC 7636's verifier). Unreachable → `failed`. */
export async function exchangeAuthorizationCode(
  client: HttpClient,
  clock: Pick<Clock, 'now'>,
  provider: string,
  tokenUrl: string,
  app: OAuthClient,
  input: { code: string; redirectUri: string; codeVerifier: string },
): Promise<CodeExchangeOutcome & { answer?: CodeTokenAnswer }> {
  const grant = {
    grant_type: 'authorization_code',
    code: input.code,
    redirect_uri: input.redirectUri,
    code_verifier: input.codeVerifier,
  };
  let response: OutboundResponse;
  try {
    response = await postToken(client, provider, tokenUrl, app, grant);
  } catch (error) {
    if (error instanceof OutboundNetworkError)
      return {
        ok: false,
        kind: 'failed',
        description: `the token endpoint could not be reached (${error.kind.replace('_', ' ')})`,
      };
    throw error;
  }
  const body = parseJson<CodeTokenAnswer>(response);
  if (
    response.status === 200 &&
    typeof body?.access_token === 'string' &&
    typeof body.refresh_token === 'string' &&
    body.refresh_token !== ''
  ) {
    return {
      ok: true,
      grant: { ...grantOf(body, body.access_token, clock), refreshToken: body.refresh_token },
      instanceUrl: null,
      identityUrl: null,
      answer: body,
    };
  }
  return codeRefusal(response, body);
}

/** Why the token endpoint did not give a usable grant for the code. */
function codeRefusal(response: OutboundResponse, body: CodeTokenAnswer | undefined): CodeExchangeOutcome {
  if (response.status === 200) {
    return {
      ok: false,
      kind: 'failed',
      status: 200,
      description:
        'the token answer carries no refresh token (the app must be allowed offline access: refresh_token / offline_access scope)',
    };
  }
  const code = body?.error ?? body?.status ?? '';
  const text = redactText(String(body?.error_description ?? body?.message ?? code)).slice(0, 300);
  // PKCE: the verifier of this flow does not fit the code.
  if (response.status === 400 && /code.?verifier/i.test(text)) {
    return {
      ok: false,
      kind: 'invalid_grant',
      status: 400,
      description: `the code was issued to another sign-in flow: its PKCE code verifier does not match (${text})`,
    };
  }
  if (response.status === 400 && DEAD_GRANT.has(code)) {
    return { ok: false, kind: 'invalid_grant', status: 400, description: text || code };
  }
  return {
    ok: false,
    kind: 'failed',
    status: response.status,
    description: text === '' ? `the token endpoint answered ${response.status}` : text,
  };
}
