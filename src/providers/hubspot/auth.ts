import type { Clock } from '../../lib/clock.ts';
import type { AuthFacet } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import type { OutboundResponse } from '../client/types.ts';
import { bearer, refreshAccessToken } from '../oauth.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

export function hubspotAuth(client: HttpClient, clock: Clock): AuthFacet {
  return {
    // HubSpot does not document rotation, but says to keep whatever refresh token comes back.
    refresh: (app, refreshToken) =>
      refreshAccessToken(client, clock, HUBSPOT_PROFILE.provider, app, refreshToken),

    // HubSpot warns that a 401 alone is not proof of expiry, but a refresh is the only remedy we have;
    // the token manager refreshes at most once per rejected token, so this cannot loop.
    isExpiredToken: (response: OutboundResponse) => response.status === 401,

    authorize: bearer,
  };
}
