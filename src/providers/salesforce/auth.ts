import type { AuthFacet, OAuthApp, RefreshOutcome } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { reaching } from '../errors.ts';

interface SalesforceTokenResponse {
  access_token?: string;
  refresh_token?: string;
  scope?: string;
  issued_at?: string;
}

interface OAuthErrorBody {
  error?: string;
  error_description?: string;
}

/** Salesforce's REST 401 body is an array of `{ errorCode, message }`. */
function restErrors(response: OutboundResponse): Array<{ errorCode?: string; message?: string }> {
  const body = parseJson<unknown>(response);
  return Array.isArray(body) ? (body as Array<{ errorCode?: string; message?: string }>) : [];
}

export function salesforceAuth(client: HttpClient): AuthFacet {
  return {
    async refresh(app: OAuthApp, refreshToken: string): Promise<RefreshOutcome> {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
      const response = await reaching('salesforce', 'token refresh', () =>
        client.send({
          method: 'POST',
          url: app.tokenUrl,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form.toString(),
          // Without rotation a resend is harmless; with rotation a lost answer cannot be recovered
          // by resending either, so only connection failures (nothing sent) are retried.
          idempotent: false,
          label: 'salesforce.oauth.refresh',
        }),
      );
      const body = parseJson<SalesforceTokenResponse & OAuthErrorBody>(response);
      if (response.status === 200 && typeof body?.access_token === 'string') {
        // No expires_in: the lifetime is the org's session timeout, so expiry is found by a 401.
        return {
          ok: true,
          grant: {
            accessToken: body.access_token,
            ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
            ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
          },
        };
      }
      if (response.status === 400 && body?.error === 'invalid_grant') {
        return { ok: false, kind: 'invalid_grant', description: body.error_description ?? 'invalid_grant' };
      }
      return {
        ok: false,
        kind: 'failed',
        status: response.status,
        body: body ?? response.text.slice(0, 500),
      };
    },

    isExpiredToken(response: OutboundResponse): boolean {
      if (response.status !== 401) return false;
      const errors = restErrors(response);
      // jsforce skips the refresh for "not valid for use with the REST API": refreshing cannot fix it.
      return !errors.some((e) => e.message?.includes('not valid for use with the REST API'));
    },

    authorize(headers: Record<string, string>, accessToken: string): Record<string, string> {
      return { ...headers, authorization: `Bearer ${accessToken}` };
    },
  };
}
