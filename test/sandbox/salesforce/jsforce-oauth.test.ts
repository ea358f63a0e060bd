import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsforce from 'jsforce';
import { type SalesforceSandbox, startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { trackBulkJobCloses } from './jsforce-helpers.ts';

type T = { after: (fn: () => Promise<void>) => void };

async function start(t: T, options: Parameters<typeof startSalesforceSandbox>[0] = {}) {
  const sf = await startSalesforceSandbox({ port: 0, ...options });
  t.after(() => sf.close());
  return sf;
}

function connect(sf: SalesforceSandbox) {
  const c = sf.credentials;
  return new jsforce.Connection({
    oauth2: { clientId: c.clientId, clientSecret: c.clientSecret, loginUrl: sf.url },
    instanceUrl: sf.url,
    accessToken: c.accessToken,
    refreshToken: c.refreshToken,
    version: '62.0',
  });
}

const expireAll = (sf: SalesforceSandbox) => fetch(`${sf.url}/__sandbox/tokens/expire`, { method: 'POST' });

test('an expired access token makes jsforce refresh and retry the call once', async (t) => {
  const sf = await start(t);
  const conn = connect(sf);
  const refreshed: string[] = [];
  conn.on('refresh', (token: string) => refreshed.push(token));
  assert.equal((await conn.query('SELECT Id FROM Account LIMIT 1')).records.length, 1);
  const before = conn.accessToken;
  await expireAll(sf);
  const res = await conn.query('SELECT Id FROM Account LIMIT 1');
  assert.equal(res.records.length, 1);
  assert.equal(refreshed.length, 1);
  assert.notEqual(conn.accessToken, before);
  assert.equal(conn.accessToken, refreshed[0]);
  assert.equal(sf.accounting.count('oauth.token.refresh_token'), 1);
  assert.equal(sf.accounting.count('rest.query'), 3); // the 401 and its retry both reached the sandbox
});

test('Bulk 2.0 (401 INVALID_SESSION_ID) and Bulk 1.0 (400 InvalidSessionId) also make jsforce refresh', async (t) => {
  const sf = await start(t);
  const conn = connect(sf);
  const jobCloses = trackBulkJobCloses(conn);
  conn.bulk.pollInterval = 20;
  await expireAll(sf);
  const v1 = await conn.bulk.load('Account', 'insert', [{ Name: 'After expiry v1' }]);
  assert.equal(v1[0]?.success, true);
  await jobCloses.settled();
  await expireAll(sf);
  const v2 = await conn.bulk2.loadAndWaitForResults({
    object: 'Account',
    operation: 'insert',
    input: [{ Name: 'After expiry v2' }],
    pollInterval: 20,
  });
  assert.equal(v2.successfulResults.length, 1);
  assert.equal(sf.accounting.count('oauth.token.refresh_token'), 2);
});

test('rotation: jsforce 3.10.16 does not keep the rotated refresh token, so its second refresh revokes the grant', async (t) => {
  // jsforce's oauthRefreshFn calls conn._establish({instanceUrl, accessToken, userInfo}) without the
  // refresh_token of the answer; with Refresh Token Rotation the next refresh replays the old token,
  // which Salesforce treats as theft and answers by revoking the whole grant.
  const sf = await start(t, { rotateRefreshTokens: true });
  const conn = connect(sf);
  await expireAll(sf);
  await conn.query('SELECT Id FROM Account LIMIT 1');
  assert.equal(conn.refreshToken, sf.credentials.refreshToken);
  await expireAll(sf);
  await assert.rejects(
    async () => conn.query('SELECT Id FROM Account LIMIT 1'),
    /expired access\/refresh token/,
  );
});

test('rotation: storing refresh_token from the refresh event keeps the connection alive across many expiries', async (t) => {
  const sf = await start(t, { rotateRefreshTokens: true });
  const conn = connect(sf);
  const seen = new Set<string>();
  conn.on('refresh', (_token: string, res: { refresh_token?: string }) => {
    if (res.refresh_token) {
      seen.add(res.refresh_token);
      conn.refreshToken = res.refresh_token;
    }
  });
  for (let i = 0; i < 3; i++) {
    await expireAll(sf);
    assert.equal((await conn.query('SELECT Id FROM Account LIMIT 1')).records.length, 1);
  }
  assert.equal(seen.size, 3);
  assert.ok(!seen.has(sf.credentials.refreshToken));
});

test('authorization code flow with jsforce: authorize URL, consent, code exchange, identity', async (t) => {
  const sf = await start(t);
  const c = sf.credentials;
  const redirectUri = 'http://localhost:3000/oauth/callback';
  const oauth2 = new jsforce.OAuth2({
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    redirectUri,
    loginUrl: sf.url,
  });
  const authUrl = oauth2.getAuthorizationUrl({ scope: 'api refresh_token', state: 'st-1' });
  const page = await fetch(authUrl);
  assert.equal(page.status, 200);
  // What the browser posts when the user clicks Allow.
  const form = new URLSearchParams({ ...Object.fromEntries(new URL(authUrl).searchParams), action: 'allow' });
  const decision = await fetch(`${sf.url}/services/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const location = new URL(decision.headers.get('location') ?? '');
  assert.equal(location.searchParams.get('state'), 'st-1');
  const conn = new jsforce.Connection({ oauth2, version: '62.0' });
  const userInfo = await conn.authorize(location.searchParams.get('code') ?? '');
  assert.equal(conn.instanceUrl, sf.url);
  assert.ok(conn.refreshToken);
  assert.equal(userInfo.organizationId, sf.org.orgId);
  assert.equal(userInfo.id, sf.org.adminUserId);
  const identity = await conn.identity();
  assert.equal(identity.user_id, sf.org.adminUserId);
  assert.equal((await conn.query('SELECT Id FROM Account LIMIT 1')).records.length, 1);
  assert.equal(sf.accounting.count('oauth.token.authorization_code'), 1);
});

test('a revoked refresh token makes the refresh fail with invalid_grant', async (t) => {
  const sf = await start(t);
  const conn = connect(sf);
  await conn.oauth2.revokeToken(sf.credentials.refreshToken);
  // Revoking the refresh token revoked its access tokens too: the call 401s, the refresh is refused.
  await assert.rejects(
    async () => conn.query('SELECT Id FROM Account LIMIT 1'),
    /expired access\/refresh token/,
  );
});

test('revoke errors are form-encoded, so jsforce names its error after them', async (t) => {
  // jsforce parses revoke errors with querystring, matching Salesforce's form-encoded body
  // (its token endpoint, by contrast, answers JSON).
  const sf = await start(t);
  const conn = connect(sf);
  await assert.rejects(
    async () => conn.oauth2.revokeToken('not-a-token'),
    (e: Error) => {
      assert.equal(e.name, 'unsupported_token_type');
      assert.equal(e.message, 'this token type is not supported');
      return true;
    },
  );
  await conn.oauth2.revokeToken(sf.credentials.accessToken);
  await assert.rejects(async () => conn.oauth2.revokeToken(sf.credentials.accessToken), {
    name: 'invalid_token',
  });
});
