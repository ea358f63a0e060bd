// PKCE on the HubSpot sandbox's consent page and token endpoint: a code issued with an S256
// challenge is exchanged only with its verifier; a code issued without one needs none.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const REDIRECT = 'http://localhost:9999/callback';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs = await startHubSpotSandbox({ port: 0 });
  t.after(() => hs.close());
  const c = hs.credentials;
  /** Shows the consent page with these extra query fields, then posts its form with "Connect app". */
  const codeOf = async (extra: Record<string, string>): Promise<string> => {
    const query = new URLSearchParams({
      client_id: c.clientId,
      redirect_uri: REDIRECT,
      scope: 'oauth',
      ...extra,
    });
    const html = await (await fetch(`${hs.url}/oauth/authorize?${query}`)).text();
    const fields = Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
    );
    const decision = await fetch(`${hs.url}/oauth/authorize`, {
      ...form({ ...fields, decision: 'allow' }),
      redirect: 'manual',
    });
    return new URL(decision.headers.get('location') ?? '').searchParams.get('code') ?? '';
  };
  const exchange = async (code: string, extra: Record<string, string> = {}) => {
    const res = await fetch(
      `${hs.url}/oauth/v3/token`,
      form({
        grant_type: 'authorization_code',
        client_id: c.clientId,
        client_secret: c.clientSecret,
        redirect_uri: REDIRECT,
        code,
        ...extra,
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { hs, codeOf, exchange };
}

test('a code issued with an S256 challenge needs its verifier; a wrong or missing one is refused in HubSpot’s error shape', async (t) => {
  const { codeOf, exchange } = await start(t);
  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const code = await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' });

  const missing = await exchange(code);
  assert.equal(missing.status, 400);
  assert.equal(missing.body['status'], 'BAD_AUTH_CODE');
  assert.equal(missing.body['error'], 'invalid_grant');
  assert.match(String(missing.body['error_description']), /missing code_verifier/);
  assert.equal(missing.body['message'], missing.body['error_description']);

  const wrong = await exchange(code, { code_verifier: 'w'.repeat(43) });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body['status'], 'BAD_AUTH_CODE');
  assert.match(String(wrong.body['error_description']), /code_verifier does not match/);

  // A refused verifier leaves the code to its own flow, which redeems it once.
  const right = await exchange(code, { code_verifier: verifier });
  assert.equal(right.status, 200);
  assert.equal(typeof right.body['access_token'], 'string');
  const again = await exchange(code, { code_verifier: verifier });
  assert.equal(again.body['status'], 'BAD_AUTH_CODE');
  assert.match(String(again.body['message']), /unknown auth code/);
});

test('a code issued without a challenge is exchanged without a verifier; a method other than S256 is refused', async (t) => {
  const { hs, codeOf, exchange } = await start(t);
  assert.equal((await exchange(await codeOf({}))).status, 200);
  const plain = await fetch(
    `${hs.url}/oauth/authorize?${new URLSearchParams({
      client_id: hs.credentials.clientId,
      redirect_uri: REDIRECT,
      scope: 'oauth',
      code_challenge: 'abc',
      code_challenge_method: 'plain',
    })}`,
  );
  assert.equal(plain.status, 400);
  assert.match(await plain.text(), /code_challenge_method must be S256/);
});
