import type { Connection } from '../../domain/connection.ts';
import type { CrmAdapter, ProviderDeps, ProviderModule } from '../adapter.ts';
import { configuredApp, refreshAccessToken } from '../oauth.ts';
import { hubspotAssociations } from './associations.ts';
import { hubspotAuditLogs } from './audit-logs.ts';
import { hubspotConnect } from './connect.ts';
import { PerConnectionState, paced } from './connection-state.ts';
import { hubspotAddCustomField, hubspotDescribe } from './objects.ts';
import { HUBSPOT, HUBSPOT_PROFILE } from './profile.ts';
import { hubspotGet } from './records.ts';
import { hubspotSearch } from './search.ts';
import { type HubSpotSettings, hubspotSettings } from './settings.ts';
import { hubspotUpsert } from './upsert.ts';
import { hubspotWrites } from './writes.ts';

/** HubSpot's operations, every CRM call paced per connection. */
function createHubSpotAdapter(deps: ProviderDeps<HubSpotSettings>): CrmAdapter {
  const { clock, settings } = deps;
  const hs = new PerConnectionState({
    clock,
    shared: deps.shared,
    pacer: { onWait: (kind, ms) => deps.onPacerWait?.(HUBSPOT_PROFILE.provider, kind, ms) },
  });
  const apiBaseUrl = (c: Pick<Connection, 'apiBaseUrl'>) => c.apiBaseUrl ?? HUBSPOT_PROFILE.defaultApiBaseUrl;
  return {
    profile: HUBSPOT,
    auth: {
      // HubSpot does not document rotation, but says to keep whatever refresh token comes back.
      refresh: (app, refreshToken) =>
        refreshAccessToken(deps.client, clock, HUBSPOT_PROFILE.provider, app, refreshToken),
      // Not proof of expiry, says HubSpot, but refreshing is the only remedy (at most once per token).
      isExpiredToken: (response) => response.status === 401,
    },
    connect: hubspotConnect(deps.client, clock, settings),
    defaultApiBaseUrl: apiBaseUrl,
    oauthApp(connection, sandboxClient) {
      const app = sandboxClient ?? configuredApp(settings);
      return app && { ...app, tokenUrl: `${apiBaseUrl(connection)}${HUBSPOT_PROFILE.tokenPath}` };
    },
    handlers: {
      ...hubspotWrites(hs),
      upsert: (call, input) => hubspotUpsert(hs.at(call), input),
      search: hubspotSearch(hs, deps.signingKey),
      get: hubspotGet(hs),
      describe: hubspotDescribe(hs),
      ...hubspotAssociations(hs),
      audit_logs: hubspotAuditLogs(hs, deps.signingKey),
      add_custom_field: hubspotAddCustomField(hs),
      passthrough: {
        forwardedHeaders: { names: [], prefixes: [] },
        // Sandbox connections also accept HubSpot's real host, so client code runs unchanged on both.
        publicOrigins: (c) => (c.sandbox ? [HUBSPOT_PROFILE.defaultApiBaseUrl] : []),
        // HubSpot's limits are per account: pass-through shares the connection's pacer.
        pace: (connectionId, path, send, headOf) =>
          paced(hs.of(connectionId).pacer, clock, path, send, headOf),
      },
    },
  };
}

export const hubspotProvider: ProviderModule<typeof hubspotSettings> = {
  profile: HUBSPOT,
  settings: hubspotSettings,
  create: createHubSpotAdapter,
};
