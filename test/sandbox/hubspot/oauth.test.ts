import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import { OAuthState } from '../../../sandbox/hubspot/oauth/index.ts';

/** The fields these tests read from the sandbox's JSON answers (token, token-info and error bodies). */
interface Answer {
  status: string;
  error: string;
  error_description: string;
  message: string;
  category: string;
  correlationId: string;
  context: Record<string, string[]>;
  token_type: string;
  token_use: string;
  access_token: string;
  refresh_token: string;
  expires_in: number;
  hub_id: number;
  user_id: number;
  app_id: number;
  scopes: string[];
  token: string;
  client_id: string;
  active: boolean;
}

const read = async (res: Response): Promise<Answer> => (await res.json()) as Answer;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function start(t: { after: (fn: () => Promise<void>) => void }, options = {}) {
  const hs = await startHubSpotSandbox({ port: 0, ...options });
  t.after(() => hs.close());
  return hs;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test('refresh_token grant answers HubSpot token shape with the same refresh token', async (t) => {
  const hs = await start(t, { accessTokenTtlSeconds: 600 });
  const c = hs.credentials;
  const res = await fetch(
    `${hs.url}/oauth/v1/token`,
    form({
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: c.refreshToken,
    }),
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json;charset=utf-8/);
  const body = await read(res);
  assert.equal(body.token_type, 'bearer');
  assert.equal(body.expires_in, 600);
  assert.equal(body.refresh_token, c.refreshToken);
  assert.equal(body.token_use, 'access_token');
  assert.notEqual(body.access_token, c.accessToken);
  const api = await fetch(`${hs.url}/crm/v3/objects/contacts?limit=1`, {
    headers: bearer(body.access_token),
  });
  assert.equal(api.status, 200);
  assert.equal(hs.accounting.count('oauth.token.refresh_token'), 1);
});

test('expires_in defaults to 1800 and /oauth/v3/token answers the same shape', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const res = await fetch(
    `${hs.url}/oauth/v3/token`,
    form({
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: c.refreshToken,
    }),
  );
  const body = await read(res);
  assert.equal(res.status, 200);
  assert.equal(body.expires_in, 1800);
  assert.equal(body.hub_id, hs.portal.portalId);
});

test('token endpoint errors carry HubSpot status codes, checked client id first', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const cases: [Record<string, string>, string, string][] = [
    [
      { grant_type: 'refresh_token', client_id: 'nope', client_secret: 'x', refresh_token: 'x' },
      'BAD_CLIENT_ID',
      'invalid_request',
    ],
    [
      {
        grant_type: 'refresh_token',
        client_id: c.clientId,
        client_secret: 'wrong',
        refresh_token: c.refreshToken,
      },
      'BAD_CLIENT_SECRET',
      'invalid_client',
    ],
    [
      {
        grant_type: 'refresh_token',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        refresh_token: 'na1-unknown',
      },
      'BAD_REFRESH_TOKEN',
      'invalid_grant',
    ],
    [
      {
        grant_type: 'authorization_code',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        code: 'nope',
        redirect_uri: 'http://x',
      },
      'BAD_AUTH_CODE',
      'invalid_grant',
    ],
    [
      { grant_type: 'password', client_id: c.clientId, client_secret: c.clientSecret },
      'BAD_GRANT_TYPE',
      'unsupported_grant_type',
    ],
  ];
  for (const [fields, status, error] of cases) {
    const res = await fetch(`${hs.url}/oauth/v1/token`, form(fields));
    assert.equal(res.status, 400, status);
    const body = await read(res);
    assert.equal(body.status, status);
    assert.equal(body.error, error);
    assert.equal(body.message, body.error_description);
  }
  const refresh = await read(await fetch(`${hs.url}/oauth/v1/token`, form(cases[2]![0])));
  assert.equal(refresh.message, 'refresh token is invalid, expired or revoked');
  // A JSON body carries no form fields: the client id is missing.
  const json = await fetch(`${hs.url}/oauth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'refresh_token', client_id: c.clientId }),
  });
  assert.equal(json.status, 400);
  assert.equal((await read(json)).status, 'BAD_CLIENT_ID');
});

test('authorization code flow through the consent page, single-use code, redirect_uri must match', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const redirect = 'http://localhost:9999/callback';
  const page = await fetch(
    `${hs.url}/oauth/authorize?client_id=${c.clientId}&redirect_uri=${encodeURIComponent(redirect)}&scope=oauth%20crm.objects.contacts.read&optional_scope=crm.objects.deals.read&state=s-123`,
  );
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /crm\.objects\.contacts\.read/);
  // Post the page's own form fields, as a browser would on "Connect app".
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1]!,
      m[2]!.replace(/&amp;/g, '&'),
    ]),
  );
  const decision = await fetch(`${hs.url}/oauth/authorize`, {
    ...form({ ...fields, decision: 'allow' }),
    redirect: 'manual',
  });
  assert.equal(decision.status, 302);
  const location = new URL(decision.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, redirect);
  assert.equal(location.searchParams.get('state'), 's-123');
  const code = location.searchParams.get('code') ?? '';
  const exchange = (redirectUri: string) =>
    fetch(
      `${hs.url}/oauth/v1/token`,
      form({
        grant_type: 'authorization_code',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        code,
        redirect_uri: redirectUri,
      }),
    );
  const mismatch = await exchange('http://elsewhere/cb');
  assert.equal((await read(mismatch)).status, 'BAD_REDIRECT_URI');
  const ok = await exchange(redirect);
  assert.equal(ok.status, 200);
  const tokens = await read(ok);
  assert.deepEqual(tokens.scopes, ['oauth', 'crm.objects.contacts.read', 'crm.objects.deals.read']);
  assert.match(tokens.refresh_token, /^na1-/);
  const again = await exchange(redirect);
  assert.equal((await read(again)).status, 'BAD_AUTH_CODE');
  const info = await read(await fetch(`${hs.url}/oauth/v1/refresh-tokens/${tokens.refresh_token}`));
  assert.equal(info.client_id, c.clientId);
  assert.deepEqual(info.scopes, tokens.scopes);
  assert.equal(info.token_type, 'refresh');
});

test('cancel on the consent page redirects with error=access_denied; unknown client gets an error page', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const denied = await fetch(`${hs.url}/oauth/authorize`, {
    ...form({
      client_id: c.clientId,
      redirect_uri: 'http://localhost/cb',
      scope: 'oauth',
      state: 'z',
      decision: 'deny',
    }),
    redirect: 'manual',
  });
  const location = new URL(denied.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('error'), 'access_denied');
  assert.equal(location.searchParams.get('code'), null);
  const bad = await fetch(
    `${hs.url}/oauth/authorize?client_id=nope&redirect_uri=http://localhost/cb&scope=oauth`,
  );
  assert.equal(bad.status, 400);
  assert.match(bad.headers.get('content-type') ?? '', /text\/html/);
});

test('token info for access tokens (OAuth and private app) and 404 for unknown ones', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const res = await fetch(`${hs.url}/oauth/v1/access-tokens/${c.accessToken}`);
  assert.equal(res.status, 200);
  const info = await read(res);
  assert.equal(info.token, c.accessToken);
  assert.equal(info.hub_id, hs.portal.portalId);
  assert.equal(info.token_type, 'access');
  assert.equal(typeof info.user_id, 'number');
  assert.equal(typeof info.app_id, 'number');
  assert.ok(info.expires_in > 0 && info.expires_in <= 1800);
  assert.ok(info.scopes.includes('oauth'));
  const pat = await read(await fetch(`${hs.url}/oauth/v1/access-tokens/${c.privateAppToken}`));
  assert.equal(pat.hub_id, hs.portal.portalId);
  const unknown = await fetch(`${hs.url}/oauth/v1/access-tokens/CKnothing`);
  assert.equal(unknown.status, 404);
  assert.equal((await read(unknown)).status, 'error');
  assert.equal(hs.accounting.count('oauth.tokenInfo'), 3);
});

test('deleting a refresh token revokes it and the access tokens of its grant', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const del = await fetch(`${hs.url}/oauth/v1/refresh-tokens/${c.refreshToken}`, { method: 'DELETE' });
  assert.equal(del.status, 204);
  const refresh = await fetch(
    `${hs.url}/oauth/v1/token`,
    form({
      grant_type: 'refresh_token',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      refresh_token: c.refreshToken,
    }),
  );
  assert.equal((await read(refresh)).status, 'BAD_REFRESH_TOKEN');
  const api = await fetch(`${hs.url}/crm/v3/objects/contacts`, { headers: bearer(c.accessToken) });
  assert.equal(api.status, 401);
  assert.equal((await read(api)).category, 'INVALID_AUTHENTICATION');
  assert.equal((await fetch(`${hs.url}/oauth/v1/refresh-tokens/${c.refreshToken}`)).status, 404);
});

test('expired and invalid tokens get HubSpot 401 bodies; private-app tokens never expire', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const expire = await fetch(`${hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.ok(expire.status < 300);
  const expired = await fetch(`${hs.url}/crm/v3/objects/contacts`, { headers: bearer(c.accessToken) });
  assert.equal(expired.status, 401);
  const body = await read(expired);
  assert.equal(body.category, 'EXPIRED_AUTHENTICATION');
  assert.match(
    body.message,
    /^The OAuth token used to make this call expired \d+ (second|minute)\(s\) ago\.$/,
  );
  assert.equal(body.context['expire time']?.length, 1);
  assert.equal(expired.headers.get('x-hubspot-correlation-id'), body.correlationId);
  const invalid = await fetch(`${hs.url}/crm/v3/objects/contacts`, { headers: bearer('CKforged') });
  assert.equal(invalid.status, 401);
  assert.equal((await read(invalid)).category, 'INVALID_AUTHENTICATION');
  const missing = await fetch(`${hs.url}/crm/v3/objects/contacts`);
  assert.equal((await read(missing)).category, 'INVALID_AUTHENTICATION');
  const pat = await fetch(`${hs.url}/crm/v3/objects/contacts`, { headers: bearer(c.privateAppToken) });
  assert.equal(pat.status, 200);
  // Refresh still works after the expiry, and the new token is accepted.
  const refreshed = await read(
    await fetch(
      `${hs.url}/oauth/v1/token`,
      form({
        grant_type: 'refresh_token',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        refresh_token: c.refreshToken,
      }),
    ),
  );
  assert.equal(
    (await fetch(`${hs.url}/crm/v3/objects/contacts`, { headers: bearer(refreshed.access_token) })).status,
    200,
  );
});

test('bootstrap credentials can be overridden so a restarted sandbox accepts a stored refresh token', async (t) => {
  const hs = await start(t, {
    credentials: { refreshToken: 'na1-stored-refresh', clientSecret: 'stored-secret' },
  });
  const res = await fetch(
    `${hs.url}/oauth/v1/token`,
    form({
      grant_type: 'refresh_token',
      client_id: hs.credentials.clientId,
      client_secret: 'stored-secret',
      refresh_token: 'na1-stored-refresh',
    }),
  );
  assert.equal(res.status, 200);
});

test('v3 introspection and revocation', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const client = { client_id: c.clientId, client_secret: c.clientSecret };
  const active = await read(
    await fetch(
      `${hs.url}/oauth/v3/token/introspect`,
      form({ ...client, token: c.accessToken, token_type_hint: 'access_token' }),
    ),
  );
  assert.equal(active.active, true);
  assert.equal(active.token_use, 'access_token');
  assert.equal(active.client_id, c.clientId);
  const refresh = await read(
    await fetch(`${hs.url}/oauth/v3/token/introspect`, form({ ...client, refresh_token: c.refreshToken })),
  );
  assert.equal(refresh.token_use, 'refresh_token');
  const unknown = await read(
    await fetch(`${hs.url}/oauth/v3/token/introspect`, form({ ...client, token: 'zzz' })),
  );
  assert.deepEqual(unknown, { active: false });
  const revoke = await fetch(`${hs.url}/oauth/v3/token/revoke`, form({ ...client, token: c.refreshToken }));
  assert.equal(revoke.status, 200);
  const after = await read(
    await fetch(`${hs.url}/oauth/v3/token/introspect`, form({ ...client, refresh_token: c.refreshToken })),
  );
  assert.equal(after.active, false);
});

test('access tokens expire after their lifetime (injected clock)', () => {
  let now = 1_000_000;
  const state = new OAuthState({
    portalId: 1,
    accessTokenTtlSeconds: 1800,
    credentials: {
      clientId: 'c',
      clientSecret: 's',
      refreshToken: 'r',
      accessToken: 'a',
      privateAppToken: 'pat-na1-x',
    },
    clock: () => now,
  });
  const issued = state.refresh('r');
  assert.ok(issued.ok);
  if (!issued.ok) return;
  assert.deepEqual(state.verify(issued.accessToken).ok, true);
  now += 1_799_000;
  assert.equal(state.verify(issued.accessToken).ok, true);
  now += 1_000;
  const expired = state.verify(issued.accessToken);
  assert.equal(expired.ok, false);
  assert.equal(!expired.ok && expired.reason, 'expired');
  assert.equal(state.verify('pat-na1-x').ok, true);
  assert.equal(state.verify(undefined).ok === false && 'missing', 'missing');
});
