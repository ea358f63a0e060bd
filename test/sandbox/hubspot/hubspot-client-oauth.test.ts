import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  return hs;
}

test('@hubspot/api-client refreshes a token against the sandbox and uses the new one', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const oauthClient = new Client({ basePath: hs.url });
  // Signature in 13.5.0: create(grantType, code, redirectUri, clientId, clientSecret, refreshToken); it
  // posts the form to basePath + /oauth/v1/token.
  const tokens = await oauthClient.oauth.tokensApi.create(
    'refresh_token',
    undefined,
    undefined,
    c.clientId,
    c.clientSecret,
    c.refreshToken,
  );
  // The client's `TokenResponseIF` model keeps only accessToken/refreshToken/idToken/tokenType/expiresIn;
  // the spec's `AccessTokenResponse` (oauth-v1.json) also has hub_id, user_id, scopes and a required
  // token_use, which the sandbox sends (checked in openapi-conformance) and the client drops.
  assert.equal(tokens.tokenType, 'bearer');
  assert.equal(tokens.expiresIn, 1800);
  assert.equal(tokens.refreshToken, c.refreshToken);
  assert.equal(typeof tokens.accessToken, 'string');
  assert.equal(hs.accounting.count('oauth.token.refresh_token'), 1);
  const api = new Client({ accessToken: tokens.accessToken, basePath: hs.url });
  const page = await api.crm.contacts.basicApi.getPage(1);
  assert.ok(Array.isArray(page.results));
});

test('@hubspot/api-client surfaces BAD_REFRESH_TOKEN as an ApiException with the body', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const oauthClient = new Client({ basePath: hs.url });
  await assert.rejects(
    oauthClient.oauth.tokensApi.create(
      'refresh_token',
      undefined,
      undefined,
      c.clientId,
      c.clientSecret,
      'na1-revoked',
    ),
    (e: { code?: number; body?: { status?: string } }) => {
      assert.equal(e.code, 400);
      assert.equal(e.body?.status, 'BAD_REFRESH_TOKEN');
      return true;
    },
  );
});

test('@hubspot/api-client reads token info: access token and refresh token', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const client = new Client({ basePath: hs.url });
  const info = await client.oauth.accessTokensApi.get(c.accessToken);
  assert.equal(info.token, c.accessToken);
  assert.equal(info.hubId, hs.portal.portalId);
  assert.equal(info.tokenType, 'access');
  assert.ok(info.scopes.includes('oauth'));
  assert.ok(info.expiresIn > 0);
  const refresh = await client.oauth.refreshTokensApi.get(c.refreshToken);
  assert.equal(refresh.clientId, c.clientId);
  assert.equal(refresh.hubId, hs.portal.portalId);
  await client.oauth.refreshTokensApi.archive(c.refreshToken);
  await assert.rejects(
    client.oauth.refreshTokensApi.get(c.refreshToken),
    (e: { code?: number }) => e.code === 404,
  );
});

test('@hubspot/api-client builds the consent URL; the sandbox serves the same query on its own host', async (t) => {
  const hs = await start(t);
  const c = hs.credentials;
  const client = new Client({ basePath: hs.url });
  const url = new URL(
    client.oauth.getAuthorizationUrl(
      c.clientId,
      'http://localhost/cb',
      'oauth crm.objects.contacts.read',
      undefined,
      'st',
    ),
  );
  // The helper always points at app.hubspot.com (it ignores basePath): swap the origin for the sandbox's.
  assert.equal(url.origin, 'https://app.hubspot.com');
  const page = await fetch(`${hs.url}${url.pathname}${url.search}`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /crm\.objects\.contacts\.read/);
});
