// Mirrors jsforce's integration file test/oauth2.test.ts (5 tests) with jsforce's OAuth2 client alone.
// jsforce drives the consent page with a headless browser; the sandbox's page is a plain form, so the
// helper posts the Allow decision instead. The username-password flow logs in the sandbox's user with
// its password (`sandbox-password`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsforce from 'jsforce';
import { consentTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
const REDIRECT = 'http://localhost:4321/oauth/done';
const client = () =>
  new jsforce.OAuth2({
    clientId: sf().credentials.clientId,
    clientSecret: sf().credentials.clientSecret,
    redirectUri: REDIRECT,
    loginUrl: sf().url,
  });

describe('web server flow', () => {
  let code = '';
  let refreshToken = '';
  test('the authorize URL leads to a code, with the state passed through', async () => {
    const params = await consentTo(sf().url, client().getAuthorizationUrl({ state: 'tide-7' }));
    assert.equal(params.get('state'), 'tide-7');
    code = params.get('code') ?? '';
    assert.ok(code !== '');
  });

  test('requestToken(code) returns access and refresh tokens', async () => {
    const res = await client().requestToken(code);
    assert.equal(typeof res.access_token, 'string');
    assert.equal(typeof res.refresh_token, 'string');
    refreshToken = res.refresh_token as string;
  });

  test('refreshToken() returns a new access token', async () => {
    const res = await client().refreshToken(refreshToken);
    assert.equal(typeof res.access_token, 'string');
  });
});

describe('username password flow', () => {
  test('authenticate(username, password) returns an access token', async () => {
    const res = await client().authenticate('sandbox.admin@crm-proxy.sandbox', 'sandbox-password');
    assert.equal(typeof res.access_token, 'string');
  });
});

describe('endpoints', () => {
  test('service URLs come from loginUrl, and the sandbox serves the authorize page there', async () => {
    const oauth2 = new jsforce.OAuth2({ loginUrl: sf().url, clientId: 'client-abc', redirectUri: REDIRECT });
    assert.equal(oauth2.authzServiceUrl, `${sf().url}/services/oauth2/authorize`);
    assert.equal(oauth2.tokenServiceUrl, `${sf().url}/services/oauth2/token`);
    assert.equal(oauth2.revokeServiceUrl, `${sf().url}/services/oauth2/revoke`);
    assert.equal(
      oauth2.getAuthorizationUrl(),
      `${sf().url}/services/oauth2/authorize?response_type=code&client_id=client-abc&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    assert.equal((await fetch(client().getAuthorizationUrl())).status, 200);
  });
});
