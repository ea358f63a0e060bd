import type { Clock } from '../../lib/clock.ts';
import type { AccessCheckOutcome, ConnectFacet, ConnectTarget } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import { parseJson } from '../client/types.ts';
import { authorizationUrl, checkCall, configuredApp, exchangeAuthorizationCode } from '../oauth.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import type { HubSpotSettings } from './settings.ts';

const C = HUBSPOT_PROFILE.connect;

/** HubSpot's API host, or the sandbox standing in for consent page and API. */
const apiBase = (target: ConnectTarget) =>
  target.sandbox ? target.origin : HUBSPOT_PROFILE.defaultApiBaseUrl;

/** The account (hub id) and user an OAuth access token belongs to. */
async function tokenInfo(client: HttpClient, base: string, accessToken: string): Promise<AccessCheckOutcome> {
  // The token is the path's last segment; the outbound log masks it (lib/redact.ts).
  const url = `${base}${C.tokenInfoPath}${encodeURIComponent(accessToken)}`;
  const answer = await checkCall(client, 'HubSpot', 'token information', {
    url,
    headers: {},
    label: 'hubspot.oauth.token_info',
  });
  if ('ok' in answer) return answer;
  const body = parseJson<{ hub_id?: number | string; user?: string }>(answer);
  const hubId = body?.hub_id;
  if (answer.status !== 200 || (typeof hubId !== 'number' && typeof hubId !== 'string')) {
    return {
      ok: false,
      status: answer.status,
      description: `the token information call answered ${answer.status}`,
    };
  }
  return { ok: true, accountId: String(hubId), user: typeof body?.user === 'string' ? body.user : null };
}

/** HubSpot's OAuth install flow with PKCE. */
export function hubspotConnect(client: HttpClient, clock: Clock, settings: HubSpotSettings): ConnectFacet {
  return {
    appVariables: C.appVariables,
    // HubSpot's token endpoint (v1 and v3) takes `code_verifier`; its clients without PKCE still work.
    configuredApp: () => configuredApp(settings),
    loginOrigin(choice) {
      const origin = new URL(C.authorizeUrl).origin;
      if (choice === undefined || choice.trim() === '' || choice.trim() === origin)
        return { ok: true, origin };
      return {
        ok: false,
        message: 'HubSpot has one login page for every account: leave loginHost out.',
      };
    },
    // HubSpot's consent page takes no response_type.
    authorizeUrl: (target, input) =>
      authorizationUrl(target.sandbox ? `${target.origin}/oauth/authorize` : C.authorizeUrl, input, {
        responseType: false,
        params: {
          scope: settings.scopes.join(' '),
          optional_scope: settings.optionalScopes.length > 0 ? settings.optionalScopes.join(' ') : undefined,
        },
      }),
    exchangeCode: (target, app, input) =>
      exchangeAuthorizationCode(
        client,
        clock,
        HUBSPOT_PROFILE.provider,
        `${apiBase(target)}${HUBSPOT_PROFILE.tokenPath}`,
        app,
        input,
      ),
    checkGrant(target, exchange) {
      return tokenInfo(client, apiBase(target), exchange.grant.accessToken);
    },
    async checkAccess(connection, kind, accessToken) {
      const base = connection.apiBaseUrl ?? HUBSPOT_PROFILE.defaultApiBaseUrl;
      if (kind === 'oauth') return tokenInfo(client, base, accessToken);
      // A private-app token has no token information: one small read proves it works.
      const headers = { authorization: `Bearer ${accessToken}` };
      const url = `${base}${C.privateAppCheckPath}`;
      const answer = await checkCall(client, 'HubSpot', 'check', { url, headers, label: 'hubspot.check' });
      if ('ok' in answer) return answer;
      if (answer.status === 200) return { ok: true, accountId: null, user: null };
      return {
        ok: false,
        status: answer.status,
        description: `reading one contact answered ${answer.status}${answer.status === 403 ? ' (the private app needs the crm.objects.contacts.read scope)' : ''}`,
      };
    },
  };
}
