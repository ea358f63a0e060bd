import type { Clock } from '../lib/clock.ts';
import type { OAuthApp, RefreshOutcome } from './adapter.ts';
import type { HttpClient } from './client/http-client.ts';
import { parseJson } from './client/types.ts';
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

/** Error codes meaning "this refresh token is dead": RFC 6749's, and HubSpot's own. */
const DEAD_REFRESH_TOKEN = new Set(['invalid_grant', 'BAD_REFRESH_TOKEN']);

/**
 * The OAuth 2.0 refresh-token grant (RFC 6749 §6), shared by every CRM: a form POST to the app's
 * token endpoint. A refresh token that comes back different is a rotation and is kept; an
 * `expires_in` becomes an absolute expiry on the clock (without one, expiry is found by a 401).
 */
export async function refreshAccessToken(
  client: HttpClient,
  clock: Pick<Clock, 'now'>,
  provider: string,
  app: OAuthApp,
  refreshToken: string,
): Promise<RefreshOutcome> {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: app.clientId,
    client_secret: app.clientSecret,
  });
  const response = await unreachableAsCrmError(provider, 'token refresh', () =>
    client.send({
      method: 'POST',
      url: app.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      // Without rotation a resend is harmless; with rotation a lost answer cannot be recovered
      // by resending either, so only connection failures (nothing sent) are retried.
      idempotent: false,
      label: `${provider}.oauth.refresh`,
    }),
  );
  const body = parseJson<TokenAnswer>(response);
  if (response.status === 200 && typeof body?.access_token === 'string') {
    const scope = typeof body.scope === 'string' ? body.scope : body.scopes?.join(' ');
    return {
      ok: true,
      grant: {
        accessToken: body.access_token,
        ...(typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken
          ? { refreshToken: body.refresh_token }
          : {}),
        ...(typeof body.expires_in === 'number'
          ? { accessTokenExpiresAt: new Date(clock.now() + body.expires_in * 1000).toISOString() }
          : {}),
        ...(scope === undefined ? {} : { scope }),
      },
    };
  }
  if (response.status === 400 && DEAD_REFRESH_TOKEN.has(body?.error ?? body?.status ?? '')) {
    return {
      ok: false,
      kind: 'invalid_grant',
      description: body?.error_description ?? body?.message ?? 'invalid_grant',
    };
  }
  return { ok: false, kind: 'failed', status: response.status, body: body ?? response.text.slice(0, 500) };
}

/** The usual way an access token goes on a request. */
export function bearer(headers: Record<string, string>, accessToken: string): Record<string, string> {
  return { ...headers, authorization: `Bearer ${accessToken}` };
}
