// The CRMs' connect facets against a scripted token endpoint: a token answer may only send the
// service to the CRM's own hosts (or the sandbox that answered), never elsewhere with a token.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { HttpClient } from '../../src/providers/client/http-client.ts';
import { settingsOf } from '../../src/providers/registry.ts';
import { salesforceConnect } from '../../src/providers/salesforce/connect.ts';
import { salesforceProvider } from '../../src/providers/salesforce/index.ts';

let server: Server;
let origin: string;
let answer: () => { status: number; body: unknown } = () => ({ status: 500, body: {} });
const seen: Array<{ method: string; url: string; authorization: string | undefined; body: string }> = [];

before(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      const a = req.url?.startsWith('/services/oauth2/token')
        ? answer()
        : {
            status: 200,
            body: { organization_id: '00D000000000001AAA', user_id: '005000000000001AAA', username: 'u@x' },
          };
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = new HttpClient({ clock: systemClock, retry: { maxAttempts: 1 } });
after(() => client.close());
const facet = salesforceConnect(
  client,
  systemClock,
  settingsOf(loadConfig({}).providers, salesforceProvider),
);
const app = { clientId: 'id', clientSecret: 'secret' };
const input = {
  code: 'c0de',
  redirectUri: 'https://crm-proxy.example.com/oauth/callback',
  codeVerifier: 'v'.repeat(43),
};

test('the code exchange sends the verifier and secret once, and refuses an instance URL off Salesforce', async () => {
  seen.length = 0;
  answer = () => ({
    status: 200,
    body: {
      access_token: 'at',
      refresh_token: 'rt',
      instance_url: 'https://evil.example',
      id: `${origin}/id/00D000000000001AAA/005000000000001AAA`,
    },
  });
  const outcome = await facet.exchangeCode({ origin, sandbox: true }, app, input);
  assert.deepEqual(outcome, {
    ok: false,
    kind: 'failed',
    description: 'the token answer has no usable instance_url',
  });
  assert.equal(seen.length, 1);
  const form = new URLSearchParams(seen[0]?.body);
  assert.equal(form.get('grant_type'), 'authorization_code');
  assert.equal(form.get('code_verifier'), 'v'.repeat(43));
  assert.equal(form.get('client_secret'), 'secret');
});

test("an identity URL on a foreign host is not called: the check asks the instance's userinfo instead", async () => {
  seen.length = 0;
  answer = () => ({
    status: 200,
    body: {
      access_token: 'at',
      refresh_token: 'rt',
      instance_url: origin,
      id: 'https://evil.example/id/00D000000000001AAA/005000000000001AAA',
    },
  });
  const outcome = await facet.exchangeCode({ origin, sandbox: true }, app, input);
  assert.ok(outcome.ok);
  assert.equal(outcome.identityUrl, null);
  const check = await facet.checkGrant({ origin, sandbox: true }, outcome);
  assert.deepEqual(check, { ok: true, accountId: '00D000000000001AAA', user: 'u@x' });
  assert.deepEqual(
    seen.map((s) => [s.method, s.url, s.authorization]),
    [
      ['POST', '/services/oauth2/token', undefined],
      ['GET', '/services/oauth2/userinfo', 'Bearer at'],
    ],
  );
});

test('a token answer without a refresh token, and a refused code, are told apart', async () => {
  answer = () => ({ status: 200, body: { access_token: 'at', instance_url: origin } });
  const noRefresh = await facet.exchangeCode({ origin, sandbox: true }, app, input);
  assert.equal(noRefresh.ok, false);
  assert.match(
    noRefresh.ok ? '' : noRefresh.description,
    /no refresh token .*refresh_token \/ offline_access/,
  );
  answer = () => ({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'expired authorization code' },
  });
  assert.deepEqual(await facet.exchangeCode({ origin, sandbox: true }, app, input), {
    ok: false,
    kind: 'invalid_grant',
    status: 400,
    description: 'expired authorization code',
  });
});
