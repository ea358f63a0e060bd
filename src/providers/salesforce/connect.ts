import type { Clock } from '../../lib/clock.ts';
import type { AccessCheckOutcome, ConnectFacet, ConnectTarget } from '../adapter.ts';
import type { HttpClient } from '../client/http-client.ts';
import { parseJson } from '../client/types.ts';
import { authorizationUrl, checkCall, configuredApp, exchangeAuthorizationCode } from '../oauth.ts';
import { SALESFORCE, SALESFORCE_PROFILE } from './profile.ts';
import type { SalesforceSettings } from './settings.ts';

const C = SALESFORCE_PROFILE.connect;

const endsWithAny = (host: string, suffixes: readonly string[]) =>
  suffixes.some((suffix) => host.endsWith(suffix) && host.length > suffix.length);

/** An https origin on one of Salesforce's hosts, or the login origin the flow used (a sandbox). */
function trustedAnswerUrl(value: unknown, target: ConnectTarget): URL | null {
  if (typeof value !== 'string') return null;
  const url = URL.parse(value);
  if (url === null || url.username !== '' || url.password !== '') return null;
  if (url.origin === target.origin) return url;
  if (target.sandbox) return null;
  return url.protocol === 'https:' && url.port === '' && endsWithAny(url.hostname, C.answerHostSuffixes)
    ? url
    : null;
}

interface Identity {
  organization_id?: string;
  username?: string;
  preferred_username?: string;
  active?: boolean;
}

/** One identity or userinfo call with the access token: the org and user it names, or why not. */
async function check(
  client: HttpClient,
  url: string,
  accessToken: string,
  what: string,
): Promise<AccessCheckOutcome> {
  const response = await checkCall(client, 'Salesforce', what, {
    url,
    headers: { authorization: `Bearer ${accessToken}` },
    label: `salesforce.oauth.${what}`,
  });
  if ('ok' in response) return response;
  const body = parseJson<Identity>(response);
  // A 403 `Bad_OAuth_Token` is a rejected token, like a 401; any other 403 is a missing "id" scope.
  if (response.status === 403 && /Bad_OAuth_Token/.test(response.text)) {
    return {
      ok: false,
      status: 401,
      description: `the ${what} call answered 403 Bad_OAuth_Token: Salesforce does not accept the access token`,
    };
  }
  if (response.status !== 200 || typeof body?.organization_id !== 'string') {
    return {
      ok: false,
      status: response.status,
      description: `the ${what} call answered ${response.status}${response.status === 403 ? ' (the connected app needs the "id" scope: "Access the identity URL service")' : ''}`,
    };
  }
  if (body.active === false) return { ok: false, description: 'the Salesforce user is inactive' };
  return {
    ok: true,
    accountId: body.organization_id,
    user: body.username ?? body.preferred_username ?? null,
  };
}

/** The login origin a sign-in uses: the configured one, or a Salesforce login or My Domain host. */
function loginOrigin(loginUrl: string, choice: string | undefined): ReturnType<ConnectFacet['loginOrigin']> {
  if (choice === undefined || choice.trim() === '') return { ok: true, origin: loginUrl };
  const text = choice.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  const url = URL.parse(withScheme);
  if (url === null)
    return { ok: false, message: loginHostHelp(`"${text.slice(0, 100)}" is not a host or URL`) };
  if (url.origin === new URL(loginUrl).origin) return { ok: true, origin: url.origin };
  const host = url.hostname.toLowerCase();
  const pathless = url.pathname === '/' && url.search === '' && url.hash === '';
  if (
    url.protocol !== 'https:' ||
    url.port !== '' ||
    url.username !== '' ||
    url.password !== '' ||
    !pathless ||
    !((C.loginHosts as readonly string[]).includes(host) || endsWithAny(host, C.myDomainSuffixes))
  ) {
    return {
      ok: false,
      message: loginHostHelp(`"${text.slice(0, 100)}" is not a Salesforce login host`),
    };
  }
  return { ok: true, origin: `https://${host}` };
}

/** Salesforce's web server flow with PKCE, and the identity / userinfo check. */
export function salesforceConnect(
  client: HttpClient,
  clock: Clock,
  settings: SalesforceSettings,
): ConnectFacet {
  return {
    appVariables: C.appVariables,
    configuredApp: () => configuredApp(settings),

    loginOrigin: (choice) => loginOrigin(settings.loginUrl, choice),

    authorizeUrl: (target, input) =>
      authorizationUrl(`${target.origin}${C.authorizePath}`, input, { params: { scope: C.scope } }),

    async exchangeCode(target, app, input) {
      const outcome = await exchangeAuthorizationCode(
        client,
        clock,
        SALESFORCE.id,
        `${target.origin}${SALESFORCE_PROFILE.tokenPath}`,
        app,
        input,
      );
      if (!outcome.ok) return outcome;
      const instance = trustedAnswerUrl(outcome.answer?.instance_url, target);
      if (instance === null) {
        return { ok: false, kind: 'failed', description: 'the token answer has no usable instance_url' };
      }
      const identity = trustedAnswerUrl(outcome.answer?.id, target);
      return {
        ok: true,
        grant: outcome.grant,
        instanceUrl: instance.origin,
        identityUrl: identity !== null && C.identityPath.test(identity.pathname) ? identity.toString() : null,
      };
    },

    async checkGrant(target, exchange) {
      const accessToken = exchange.grant.accessToken;
      if (exchange.identityUrl === null) {
        // No identity URL we trust in the answer: ask the org's own userinfo endpoint instead.
        return check(
          client,
          `${exchange.instanceUrl ?? target.origin}${SALESFORCE_PROFILE.userInfoPath}`,
          accessToken,
          'userinfo',
        );
      }
      const outcome = await check(client, exchange.identityUrl, accessToken, 'identity');
      // The identity URL names the org: an answer about another org is not this grant's.
      const orgInUrl = C.identityPath.exec(new URL(exchange.identityUrl).pathname)?.[1];
      if (outcome.ok && orgInUrl !== undefined && outcome.accountId !== orgInUrl) {
        return { ok: false, description: 'the identity answer names another org than its URL' };
      }
      return outcome;
    },

    checkAccess(connection, _kind, accessToken) {
      const base = connection.apiBaseUrl ?? connection.instanceUrl ?? settings.loginUrl;
      return check(client, `${base}${SALESFORCE_PROFILE.userInfoPath}`, accessToken, 'userinfo');
    },
  };
}

function loginHostHelp(problem: string): string {
  return `loginHost: ${problem}. Use login.salesforce.com (production and Developer Edition), test.salesforce.com (sandbox orgs), or your My Domain URL such as https://acme.my.salesforce.com.`;
}
