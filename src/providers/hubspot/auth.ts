import type { Clock } from '../../lib/clock.ts';
import type { AuthFacet, OAuthApp, RefreshOutcome } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { reaching } from '../errors.ts';

interface HubSpotTokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scopes?: string[];
  error?: string;
  error_description?: string;
  status?: string;
  message?: string;
}

export function hubspotAuth(client: HttpClient, clock: Clock): AuthFacet {
  return {
    async refresh(app: OAuthApp, refreshToken: string): Promise<RefreshOutcome> {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
      const response = await reaching('hubspot', 'token refresh', () =>
        client.send({
          method: 'POST',
          url: app.tokenUrl,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form.toString(),
          idempotent: false,
          label: 'hubspot.oauth.refresh',
        }),
      );
      const body = parseJson<HubSpotTokenResponse>(response);
      if (response.status === 200 && typeof body?.access_token === 'string') {
        const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : undefined;
        return {
          ok: true,
          grant: {
            accessToken: body.access_token,
            // HubSpot does not document rotation, but says to keep whatever refresh token comes back.
            ...(typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken
              ? { refreshToken: body.refresh_token }
              : {}),
            ...(expiresIn === undefined
              ? {}
              : { accessTokenExpiresAt: new Date(clock.now() + expiresIn * 1000).toISOString() }),
            ...(Array.isArray(body.scopes) ? { scope: body.scopes.join(' ') } : {}),
          },
        };
      }
      if (
        response.status === 400 &&
        (body?.error === 'invalid_grant' || body?.status === 'BAD_REFRESH_TOKEN')
      ) {
        return {
          ok: false,
          kind: 'invalid_grant',
          description: body.error_description ?? body.message ?? 'invalid_grant',
        };
      }
      return {
        ok: false,
        kind: 'failed',
        status: response.status,
        body: body ?? response.text.slice(0, 500),
      };
    },

    // HubSpot warns that a 401 alone is not proof of expiry, but a refresh is the only remedy we have;
    // the token manager refreshes at most once per rejected token, so this cannot loop.
    isExpiredToken: (response: OutboundResponse) => response.status === 401,

    authorize(headers: Record<string, string>, accessToken: string): Record<string, string> {
      return { ...headers, authorization: `Bearer ${accessToken}` };
    },
  };
}
