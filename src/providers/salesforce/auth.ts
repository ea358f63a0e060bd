import type { Clock } from '../../lib/clock.ts';
import type { AuthFacet } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { bearer, refreshAccessToken } from '../oauth.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** Salesforce's REST 401 body is an array of `{ errorCode, message }`. */
function restErrors(response: OutboundResponse): Array<{ errorCode?: string; message?: string }> {
  const body = parseJson<unknown>(response);
  return Array.isArray(body) ? (body as Array<{ errorCode?: string; message?: string }>) : [];
}

export function salesforceAuth(client: HttpClient, clock: Clock): AuthFacet {
  return {
    // No expires_in: the lifetime is the org's session timeout, so expiry is found by a 401.
    refresh: (app, refreshToken) =>
      refreshAccessToken(client, clock, SALESFORCE_PROFILE.provider, app, refreshToken),

    isExpiredToken(response: OutboundResponse): boolean {
      if (response.status !== 401) return false;
      const errors = restErrors(response);
      // jsforce skips the refresh for "not valid for use with the REST API": refreshing cannot fix it.
      return !errors.some((e) => e.message?.includes('not valid for use with the REST API'));
    },

    authorize: bearer,
  };
}
