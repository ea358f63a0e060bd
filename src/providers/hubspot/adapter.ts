import { systemClock } from '../../lib/clock.ts';
import type { CrmAdapter } from '../adapter.ts';
import type { ProviderDeps } from '../registry.ts';
import { hubspotAuth } from './auth.ts';
import { paced } from './calls.ts';
import { HubSpotConnections } from './connection-state.ts';
import { hubspotFields } from './fields.ts';
import { HUBSPOT_CAPABILITIES, HUBSPOT_PROFILE } from './profile.ts';
import { getHubSpotRecords } from './records.ts';

/** HubSpot: token refresh, get (batch read), add custom field; every CRM call paced per connection. */
export function createHubSpotAdapter(deps: ProviderDeps): CrmAdapter & { readonly provider: 'hubspot' } {
  const clock = deps.clock ?? systemClock;
  const hs = new HubSpotConnections({ clock });
  return {
    provider: 'hubspot',
    capabilities: HUBSPOT_CAPABILITIES,
    defaultApiBaseUrl: (c) => c.apiBaseUrl ?? HUBSPOT_PROFILE.defaultApiBaseUrl,
    tokenUrl: (c) => `${c.apiBaseUrl ?? HUBSPOT_PROFILE.defaultApiBaseUrl}${HUBSPOT_PROFILE.tokenPath}`,
    auth: hubspotAuth(deps.client, clock),
    fields: hubspotFields(hs),
    hubspotObjects: {
      get: (session, objectName, input, limiter) =>
        getHubSpotRecords(hs, session, limiter, objectName, input.ids, input.fields),
      paced: (connectionId, path, send, headOf) =>
        paced(hs.of(connectionId).pacer, clock, path, send, headOf),
    },
  };
}
