import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import {
  OAuthState,
  type OAuthStateOptions,
  registerOAuthRoutes,
} from '../../../sandbox/salesforce/oauth/index.ts';
import { createSandboxApp, listen } from '../../../sandbox/shared/index.ts';

const ORG = '00D5g000004XyZ1EAK';
const USER = '0055g00000AbCdEAAV';

/** The OAuth routes alone on a sandbox app (the rest of the org is not needed for the wire shapes). */
async function start(
  t: { after: (fn: () => Promise<void>) => void },
  options: Partial<OAuthStateOptions> = {},
) {
  const core = createSandboxApp({
    name: 'sf-oauth-test',
    renderFault: (_f, _req, reply) => reply.code(500).send(),
  });
  const oauth = new OAuthState({ orgId: ORG, userId: USER, ...options });
  registerOAuthRoutes(core.app, { oauth, accounting: core.accounting, realism: core.realism });
  const url = await listen(core.app);
  t.after(() => core.app.close());
  return { url, oauth, core };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function token(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form(fields),
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.json()) as Record<string, string>,
  };
}

test('refresh grant answers the real field set, signed with the client secret', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const res = await token(url, {
    grant_type: 'refresh_token',
    refresh_token: c.refreshToken,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/json;charset=UTF-8');
  const b = res.body;
  // No refresh_token without rotation, and never expires_in.
  assert.deepEqual(Object.keys(b).sort(), [
    'access_token',
    'id',
    'instance_url',
    'issued_at',
    'scope',
    'signature',
    'token_type',
  ]);
  assert.equal(b.token_type, 'Bearer');
  assert.equal(b.instance_url, url);
  assert.equal(b.id, `${url}/id/${ORG}/${USER}`);
  assert.match(b.issued_at ?? '', /^\d{13}$/);
  assert.match(b.access_token ?? '', /^00D5g000004XyZ1!AQ[A-Za-z0-9]{20,}$/);
  const expected = createHmac('sha256', c.clientSecret).update(`${b.id}${b.issued_at}`).digest('base64');
  assert.equal(b.signature, expected);
  assert.deepEqual(oauth.verifyAccessToken(b.access_token ?? ''), { ok: true, userId: USER, orgId: ORG });
  // The bootstrap access token stays valid beside the new one.
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, true);
});

test('client id and secret are accepted through HTTP Basic', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const basic = Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64');
  const res = await token(
    url,
    { grant_type: 'refresh_token', refresh_token: c.refreshToken },
    { authorization: `Basic ${basic}` },
  );
  assert.equal(res.status, 200);
  assert.ok(res.body.access_token);
});

test('token parameters are also read from the query string', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const q = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: c.refreshToken,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  const res = await fetch(`${url}/services/oauth2/token?${q}`, { method: 'POST' });
  assert.equal(res.status, 200);
  assert.ok(((await res.json()) as { access_token?: string }).access_token);
});

test('token endpoint errors are the real {error, error_description} bodies', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const base = { client_id: c.clientId, client_secret: c.clientSecret };
  const cases: [Record<string, string>, Record<string, string>][] = [
    [
      { ...base, grant_type: 'implicit' },
      { error: 'unsupported_grant_type', error_description: 'grant type not supported' },
    ],
    [
      // The username-password flow with a wrong password: Salesforce's documented answer.
      { ...base, grant_type: 'password', username: 'sandbox.admin@crm-proxy.sandbox', password: 'wrong' },
      { error: 'invalid_grant', error_description: 'authentication failure' },
    ],
    [{ ...base }, { error: 'unsupported_grant_type', error_description: 'grant type not supported' }],
    [
      {
        grant_type: 'refresh_token',
        refresh_token: c.refreshToken,
        client_id: 'nope',
        client_secret: c.clientSecret,
      },
      { error: 'invalid_client_id', error_description: 'client identifier invalid' },
    ],
    [
      {
        grant_type: 'refresh_token',
        refresh_token: c.refreshToken,
        client_id: c.clientId,
        client_secret: 'wrong',
      },
      { error: 'invalid_client', error_description: 'invalid client credentials' },
    ],
    [
      { ...base, grant_type: 'refresh_token', refresh_token: '5Aep861unknown' },
      { error: 'invalid_grant', error_description: 'expired access/refresh token' },
    ],
    [
      { ...base, grant_type: 'authorization_code', code: 'bogus', redirect_uri: 'http://localhost/cb' },
      { error: 'invalid_grant', error_description: 'invalid authorization code' },
    ],
  ];
  for (const [fields, body] of cases) {
    const res = await token(url, fields);
    assert.equal(res.status, 400, JSON.stringify(fields));
    assert.deepEqual(res.body, body);
  }
});

async function authorize(url: string, query: Record<string, string>) {
  return fetch(`${url}/services/oauth2/authorize?${form(query)}`, { redirect: 'manual' });
}

async function decide(url: string, fields: Record<string, string>) {
  return fetch(`${url}/services/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form(fields),
  });
}

test('authorization code flow: consent page, redirect with code and state, single-use code', async (t) => {
  const { url, oauth, core } = await start(t);
  const c = oauth.credentials;
  const redirect = 'http://localhost:9999/callback';
  const q = {
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: redirect,
    state: 'xyz 1',
    scope: 'api refresh_token',
  };
  const page = await authorize(url, q);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.match(html, /<form method="post" action="\/services\/oauth2\/authorize">/);
  assert.match(html, /name="state" value="xyz 1"/);
  assert.match(html, /value="allow"/);

  const allowed = await decide(url, { ...q, action: 'allow' });
  assert.equal(allowed.status, 302);
  const location = new URL(allowed.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, redirect);
  assert.equal(location.searchParams.get('state'), 'xyz 1');
  const code = location.searchParams.get('code') ?? '';
  assert.ok(code.length > 20);

  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  };
  const res = await token(url, exchange);
  assert.equal(res.status, 200);
  assert.match(res.body.refresh_token ?? '', /^5Aep861/);
  assert.equal(res.body.scope, 'api refresh_token');
  assert.equal(oauth.verifyAccessToken(res.body.access_token ?? '').ok, true);
  // The new refresh token works.
  const refreshed = await token(url, {
    grant_type: 'refresh_token',
    refresh_token: res.body.refresh_token ?? '',
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.equal(refreshed.status, 200);
  // Codes are single use.
  assert.deepEqual((await token(url, exchange)).body, {
    error: 'invalid_grant',
    error_description: 'invalid authorization code',
  });
  assert.equal(core.accounting.count('oauth.token.authorization_code'), 2);
  assert.equal(core.accounting.count('oauth.token.refresh_token'), 1);
  assert.equal(core.accounting.count('oauth.authorize'), 2);
});

test('authorization code: no refresh token without the scope, redirect_uri must match', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const q = {
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: 'https://app.example/cb',
    scope: 'api',
  };
  const loc = new URL((await decide(url, { ...q, action: 'allow' })).headers.get('location') ?? '');
  const code = loc.searchParams.get('code') ?? '';
  assert.equal(loc.searchParams.has('state'), false);
  const mismatch = await token(url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'https://other/cb',
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.deepEqual(mismatch.body, {
    error: 'redirect_uri_mismatch',
    error_description: 'redirect_uri must match configuration',
  });

  const code2 =
    new URL((await decide(url, { ...q, action: 'allow' })).headers.get('location') ?? '').searchParams.get(
      'code',
    ) ?? '';
  const ok = await token(url, {
    grant_type: 'authorization_code',
    code: code2,
    redirect_uri: q.redirect_uri,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.refresh_token, undefined);
  assert.equal(ok.body.scope, 'api');
});

test('authorize errors: bad client id and callback on an error page, denial and bad response_type redirected', async (t) => {
  const { url, oauth } = await start(t, { redirectUris: ['https://app.example/cb'] });
  const c = oauth.credentials;
  const badClient = await authorize(url, {
    response_type: 'code',
    client_id: 'x',
    redirect_uri: 'https://app.example/cb',
  });
  assert.equal(badClient.status, 400);
  assert.match(
    await badClient.text(),
    /error=invalid_client_id&#38;error_description=client%20identifier%20invalid/,
  );
  const badRedirect = await authorize(url, {
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: 'https://evil.example/cb',
  });
  assert.equal(badRedirect.status, 400);
  assert.match(await badRedirect.text(), /error=redirect_uri_mismatch/);

  const badType = await authorize(url, {
    response_type: 'id_token',
    client_id: c.clientId,
    redirect_uri: 'https://app.example/cb',
    state: 's',
  });
  assert.equal(badType.status, 302);
  const l1 = new URL(badType.headers.get('location') ?? '');
  assert.equal(l1.searchParams.get('error'), 'unsupported_response_type');
  assert.equal(l1.searchParams.get('state'), 's');

  const denied = await decide(url, {
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: 'https://app.example/cb',
    state: 's2',
    action: 'deny',
  });
  assert.equal(denied.status, 302);
  const l2 = new URL(denied.headers.get('location') ?? '');
  assert.equal(l2.searchParams.get('error'), 'access_denied');
  assert.equal(l2.searchParams.get('error_description'), 'end-user denied authorization');
  assert.equal(l2.searchParams.get('state'), 's2');
});

test('PKCE: the verifier must match the S256 challenge', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'; // RFC 7636 appendix B
  const q = {
    response_type: 'code',
    client_id: c.clientId,
    redirect_uri: 'http://localhost/cb',
    code_challenge: challenge,
  };
  const codeOf = async () =>
    new URL((await decide(url, { ...q, action: 'allow' })).headers.get('location') ?? '').searchParams.get(
      'code',
    ) ?? '';
  const base = {
    grant_type: 'authorization_code',
    redirect_uri: q.redirect_uri,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  };
  assert.equal((await token(url, { ...base, code: await codeOf() })).body.error, 'invalid_grant');
  assert.equal(
    (await token(url, { ...base, code: await codeOf(), code_verifier: 'wrong' })).body.error,
    'invalid_request',
  );
  assert.equal((await token(url, { ...base, code: await codeOf(), code_verifier: verifier })).status, 200);
});

test('revoke: an access token alone, or a refresh token with every token of its grant', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const refresh = () =>
    token(url, {
      grant_type: 'refresh_token',
      refresh_token: c.refreshToken,
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
  const a1 = (await refresh()).body.access_token ?? '';
  const a2 = (await refresh()).body.access_token ?? '';
  const revoke = (tok: string) =>
    fetch(`${url}/services/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ token: tok }),
    });
  const r1 = await revoke(a1);
  assert.equal(r1.status, 200);
  assert.equal(await r1.text(), '');
  assert.equal(oauth.verifyAccessToken(a1).ok, false);
  assert.equal(oauth.verifyAccessToken(a2).ok, true);

  // Revoke errors are form-encoded (jsforce reads them with querystring).
  const bad = await revoke('not-a-token');
  assert.equal(bad.status, 400);
  assert.equal(
    await bad.text(),
    'error=unsupported_token_type&error_description=this%20token%20type%20is%20not%20supported',
  );
  const again = await revoke(a1);
  assert.equal(again.status, 400);
  assert.equal(new URLSearchParams(await again.text()).get('error'), 'invalid_token');

  // GET form with ?token= works too.
  assert.equal(
    (await fetch(`${url}/services/oauth2/revoke?token=${encodeURIComponent(c.refreshToken)}`)).status,
    200,
  );
  assert.equal(oauth.verifyAccessToken(a2).ok, false);
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, false);
  assert.deepEqual((await refresh()).body, {
    error: 'invalid_grant',
    error_description: 'expired access/refresh token',
  });
});

test('rotation: each refresh answers a new refresh token; reusing a rotated one revokes the whole grant', async (t) => {
  const { url, oauth } = await start(t, { rotateRefreshTokens: true });
  const c = oauth.credentials;
  const refresh = (rt: string) =>
    token(url, {
      grant_type: 'refresh_token',
      refresh_token: rt,
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
  const first = await refresh(c.refreshToken);
  assert.equal(first.status, 200);
  const rt1 = first.body.refresh_token ?? '';
  assert.match(rt1, /^5Aep861/);
  assert.notEqual(rt1, c.refreshToken);
  const second = await refresh(rt1);
  const rt2 = second.body.refresh_token ?? '';
  const access2 = second.body.access_token ?? '';
  assert.equal(oauth.verifyAccessToken(access2).ok, true);

  // Replay of the already-rotated rt1: refused, and the grant is gone (rt2 and its access tokens too).
  assert.deepEqual((await refresh(rt1)).body, {
    error: 'invalid_grant',
    error_description: 'expired access/refresh token',
  });
  assert.equal(oauth.verifyAccessToken(access2).ok, false);
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, false);
  assert.equal((await refresh(rt2)).status, 400);
});

test('access tokens expire after the TTL; the control route expires every token at once', async (t) => {
  let now = 1_700_000_000_000;
  const { url, oauth } = await start(t, { accessTokenTtlSeconds: 60, clock: () => now });
  const c = oauth.credentials;
  now += 59_000;
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, true);
  now += 1_000;
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, false);

  const fresh = await token(url, {
    grant_type: 'refresh_token',
    refresh_token: c.refreshToken,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.equal(fresh.body.issued_at, String(now));
  const access = fresh.body.access_token ?? '';
  assert.equal(oauth.verifyAccessToken(access).ok, true);
  const expired = await fetch(`${url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.deepEqual(await expired.json(), { expired: 1 });
  assert.equal(oauth.verifyAccessToken(access).ok, false);
  // The refresh token still works afterwards.
  assert.equal(
    (
      await token(url, {
        grant_type: 'refresh_token',
        refresh_token: c.refreshToken,
        client_id: c.clientId,
        client_secret: c.clientSecret,
      })
    ).status,
    200,
  );
  // reset() brings the bootstrap access token back.
  oauth.reset();
  assert.equal(oauth.verifyAccessToken(c.accessToken).ok, true);
});

test('client credentials grant: no refresh token', async (t) => {
  const { url, oauth } = await start(t);
  const c = oauth.credentials;
  const res = await token(url, {
    grant_type: 'client_credentials',
    client_id: c.clientId,
    client_secret: c.clientSecret,
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.refresh_token, undefined);
  assert.equal(oauth.verifyAccessToken(res.body.access_token ?? '').ok, true);
});

test('bootstrap credentials: deterministic defaults, overridable', async (t) => {
  const a = new OAuthState({ orgId: ORG, userId: USER });
  const b = new OAuthState({ orgId: ORG, userId: USER });
  assert.deepEqual(a.credentials, b.credentials);
  assert.match(a.credentials.clientId, /^3MVG9/);
  const custom = new OAuthState({
    orgId: ORG,
    userId: USER,
    credentials: { refreshToken: 'kept-by-a-store', accessToken: 'old' },
  });
  assert.equal(custom.credentials.clientId, a.credentials.clientId);
  assert.equal(custom.refresh('kept-by-a-store').ok, true);
  assert.equal(custom.verifyAccessToken('old').ok, true);
  const { url } = await start(t, { credentials: { clientSecret: 's3cret' } });
  const res = await token(url, {
    grant_type: 'refresh_token',
    refresh_token: a.credentials.refreshToken,
    client_id: a.credentials.clientId,
    client_secret: 's3cret',
  });
  assert.equal(res.status, 200);
});

test('userinfo and identity URL answer for a valid token, 403 Bad_OAuth_Token otherwise', async (t) => {
  const { url, oauth } = await start(t);
  const auth = { authorization: `Bearer ${oauth.credentials.accessToken}` };
  const info = await fetch(`${url}/services/oauth2/userinfo`, { headers: auth });
  assert.equal(info.status, 200);
  const ui = (await info.json()) as Record<string, unknown>;
  assert.equal(ui.user_id, USER);
  assert.equal(ui.organization_id, ORG);
  assert.equal(ui.sub, `${url}/id/${ORG}/${USER}`);
  assert.equal(typeof ui.preferred_username, 'string');

  const id = await fetch(`${url}/id/${ORG}/${USER}`, { headers: auth });
  const doc = (await id.json()) as {
    id: string;
    user_id: string;
    organization_id: string;
    urls: Record<string, string>;
  };
  assert.equal(doc.id, `${url}/id/${ORG}/${USER}`);
  assert.equal(doc.urls.rest, `${url}/services/data/v{version}/`);
  assert.equal(doc.urls.tooling_rest, `${url}/services/data/v{version}/tooling/`);

  const other = await fetch(`${url}/id/${ORG}/005000000000000AAA`, { headers: auth });
  assert.equal(other.status, 404);
  assert.equal(await other.text(), 'Bad_Id');
  const bad = await fetch(`${url}/services/oauth2/userinfo`, { headers: { authorization: 'Bearer nope' } });
  assert.equal(bad.status, 403);
  assert.equal(await bad.text(), 'Bad_OAuth_Token');
  oauth.expireAll();
  assert.equal((await fetch(`${url}/id/${ORG}/${USER}`, { headers: auth })).status, 403);
});

test('a scripted fault on the token endpoint answers in the OAuth format', async (t) => {
  const { url, oauth, core } = await start(t);
  const c = oauth.credentials;
  core.realism.script([
    { kind: 'error503', match: 'oauth.token' },
    { kind: 'expireToken', match: 'oauth.token.refresh_token' },
  ]);
  const fields = {
    grant_type: 'refresh_token',
    refresh_token: c.refreshToken,
    client_id: c.clientId,
    client_secret: c.clientSecret,
  };
  const r1 = await token(url, fields);
  assert.equal(r1.status, 503);
  assert.deepEqual(r1.body, { error: 'unknown_error', error_description: 'retry your request' });
  const r2 = await token(url, fields);
  assert.deepEqual(r2.body, { error: 'invalid_grant', error_description: 'expired access/refresh token' });
  assert.equal((await token(url, fields)).status, 200);
});
