// Mirrors jsforce's integration file test/connection-session.test.ts (11 tests): login, logout and
// OAuth refresh. The sandbox's user logs in with its password (`sandbox-password`) by SOAP login() as
// jsforce does without an OAuth client; the other sessions come from the web server flow.
// Where jsforce logs in by password only to get a session for something else (a query, a logout, a
// refresh), the session here comes from the web server flow instead.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import jsforce, { type Connection } from 'jsforce';
import { consentTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
const USERNAME = 'sandbox.admin@crm-proxy.sandbox';

/** A connection logged in through the web server flow: authorize URL, consent, code exchange. */
async function webServerLogin(): Promise<{ conn: Connection; userInfo: jsforce.UserInfo }> {
  const c = sf().credentials;
  const oauth2 = {
    clientId: c.clientId,
    clientSecret: c.clientSecret,
    redirectUri: 'http://localhost:4321/cb',
    loginUrl: sf().url,
  };
  const conn = new jsforce.Connection({ oauth2, version: '62.0' });
  const params = await consentTo(sf().url, conn.oauth2.getAuthorizationUrl());
  const userInfo = await conn.authorize(params.get('code') ?? '');
  return { conn, userInfo };
}
const rejectsWithMessage = (p: PromiseLike<unknown>) =>
  assert.rejects(
    async () => p,
    (e: unknown) => typeof (e as Error)?.message === 'string' && (e as Error).message !== '',
  );

/** Breaks the access token, counts 'refresh' events, and returns the count and the last new token. */
function breakToken(conn: Connection) {
  const seen: string[] = [];
  conn.accessToken = 'expired-or-bogus';
  conn.removeAllListeners('refresh');
  conn.on('refresh', (token: string) => seen.push(token));
  return seen;
}

describe('login', () => {
  let conn: Connection | null = null;
  test('login(username, password) gives a token and user info', async () => {
    const c = new jsforce.Connection({ loginUrl: sf().url, version: '62.0' });
    const info = await c.login(USERNAME, 'sandbox-password');
    assert.equal(typeof c.accessToken, 'string');
    assert.ok(
      typeof info.id === 'string' && typeof info.organizationId === 'string' && typeof info.url === 'string',
    );
  });

  test('the logged-in connection runs a query', async () => {
    conn = (await webServerLogin()).conn;
    const res = await conn.query('SELECT Id FROM User');
    assert.ok(Array.isArray(res.records) && res.records.length > 0);
  });

  test('a bad access token is refreshed once and the query still answers', async () => {
    const c = conn as Connection;
    const seen = breakToken(c);
    const res = await c.query('SELECT Id FROM User LIMIT 5');
    assert.equal(seen.length, 1);
    assert.equal(typeof seen[0], 'string');
    assert.ok(Array.isArray(res.records));
  });
});

describe('logout', () => {
  let session = { sessionId: '', serverUrl: '' };
  test('logout() of a SOAP session clears the access token', async () => {
    const c = new jsforce.Connection({ loginUrl: sf().url, version: '62.0' });
    await c.loginBySoap(USERNAME, 'sandbox-password');
    session = { sessionId: c.accessToken as string, serverUrl: c.instanceUrl };
    await c.logout();
    assert.equal(c.accessToken, null);
  });

  test('the logged-out session id no longer works', async () => {
    assert.notEqual(session.sessionId, '');
    const stale = new jsforce.Connection({ ...session, version: '62.0' });
    await rejectsWithMessage(stale.query('SELECT Id FROM User'));
  });
});

describe('OAuth2 session', () => {
  let session = { accessToken: '', instanceUrl: '' };
  test('logout() of an OAuth2 session revokes it and clears the token', async () => {
    const { conn } = await webServerLogin();
    session = { accessToken: conn.accessToken as string, instanceUrl: conn.instanceUrl };
    await conn.logout();
    assert.equal(conn.accessToken, null);
  });

  test('the revoked access token fails with an auth error', async () => {
    const stale = new jsforce.Connection({ ...session, version: '62.0' });
    await rejectsWithMessage(stale.query('SELECT Id FROM User'));
  });
});

describe('OAuth2 refresh', () => {
  let conn: Connection | null = null;
  test('the web server flow gives access and refresh tokens, and the session queries', async () => {
    const login = await webServerLogin();
    conn = login.conn;
    const u = login.userInfo;
    assert.ok(typeof u.id === 'string' && typeof u.organizationId === 'string' && typeof u.url === 'string');
    assert.ok(typeof conn.accessToken === 'string' && typeof conn.refreshToken === 'string');
    assert.ok(Array.isArray((await conn.query('SELECT Id FROM User')).records));
  });

  test('an invalid access token is refreshed once', async () => {
    const c = conn as Connection;
    const seen = breakToken(c);
    assert.ok(Array.isArray((await c.query('SELECT Id FROM User')).records));
    assert.equal(seen.length, 1);
  });

  test('three parallel calls on an invalid token share one refresh', async () => {
    const c = conn as Connection;
    const seen = breakToken(c);
    const [q, g, d] = await Promise.all([
      c.query('SELECT Id FROM User'),
      c.describeGlobal(),
      c.sobject('User').describe(),
    ]);
    assert.equal(seen.length, 1);
    assert.ok(Array.isArray(q.records) && Array.isArray(g.sobjects) && Array.isArray(d.fields));
  });

  test('with both tokens invalid the call fails with invalid_grant', async () => {
    const c = conn as Connection;
    c.accessToken = 'expired-or-bogus';
    c.refreshToken = 'bogus-refresh-token';
    // jsforce 3.10 rethrows a failed refresh as a plain Error carrying the token endpoint's invalid_grant
    // description, so the name jsforce's suite checks is gone; the description is Salesforce's.
    await assert.rejects(
      async () => c.query('SELECT Id FROM User'),
      (e: Error) => e instanceof Error && /expired access\/refresh token/.test(e.message),
    );
  });
});

describe('password login refused', () => {
  test('a wrong password is INVALID_LOGIN by SOAP and invalid_grant by OAuth', async () => {
    const soap = new jsforce.Connection({ loginUrl: sf().url, version: '62.0' });
    await assert.rejects(soap.loginBySoap(USERNAME, 'not-the-password'), /INVALID_LOGIN/);
    const c = sf().credentials;
    const oauth = new jsforce.OAuth2({
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      loginUrl: sf().url,
    });
    await assert.rejects(oauth.authenticate(USERNAME, 'not-the-password'), /authentication failure/);
  });
});
