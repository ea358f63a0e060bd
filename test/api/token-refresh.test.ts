import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { refreshStorm } from './refresh-storm.ts';

async function storedRefreshToken(s: Awaited<ReturnType<typeof startStack>>): Promise<string> {
  const found = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.ok(found !== null && found.credentials.kind === 'oauth');
  return found.credentials.refreshToken;
}

test('refresh storm: 100 concurrent requests on an expired access token cause exactly one refresh', async (t) => {
  // 1 000 at once: test/api/token-refresh-storm.system.test.ts.
  await refreshStorm(t, 100);
});

test('with refresh-token rotation, the new refresh token is stored and the old one never reused', async (t) => {
  const s = await startStack(t, { salesforce: { rotateRefreshTokens: true } });
  const [id] = s.sf.org.insert('Account', [{ Name: 'Rotation' }]).map((r) => r.id);
  assert.ok(id !== undefined);
  const initial = await storedRefreshToken(s);
  const seen = [initial];
  for (let round = 1; round <= 3; round++) {
    await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
    // Concurrent calls in each round: one refresh, and nobody uses the refresh token it replaced.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.api('/v1/object/get/Account', { body: { data: { ids: [id], fields: ['Name'] } } }),
      ),
    );
    assert.ok(
      answers.every((a) => a.status === 200),
      answers.map((a) => a.status).join(','),
    );
    const stored = await storedRefreshToken(s);
    assert.ok(!seen.includes(stored), `round ${round}: a new refresh token is stored`);
    seen.push(stored);
  }
  assert.equal(s.sf.accounting.count('oauth.token.refresh_token'), 3);
  const found = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.equal(found?.connection.status, 'active');
});

test('HubSpot refresh: the token manager refreshes once against the HubSpot sandbox and keeps the expiry', async (t) => {
  const s = await startStack(t);
  const found = await s.ctx.connections.get(s.connectionIds.hubspot);
  assert.ok(found !== null);
  const before = await s.ctx.tokens.accessToken(found.connection);
  s.hs.accounting.reset();
  const [a, b] = await Promise.all([
    s.ctx.tokens.refreshAfterRejected(found.connection, before),
    s.ctx.tokens.refreshAfterRejected(found.connection, before),
  ]);
  assert.equal(a, b);
  assert.notEqual(a, before);
  assert.equal(s.hs.accounting.count('oauth.token.refresh_token'), 1);
  const after = await s.ctx.connections.get(s.connectionIds.hubspot);
  assert.ok(after?.credentials.kind === 'oauth');
  assert.equal(after.credentials.accessToken, a);
  assert.ok(
    after.credentials.accessTokenExpiresAt !== undefined &&
      Date.parse(after.credentials.accessTokenExpiresAt) > Date.now(),
  );
  // The new token is accepted by HubSpot.
  const probe = await fetch(`${s.hs.url}/crm/v3/objects/contacts?limit=1`, {
    headers: { authorization: `Bearer ${a}` },
  });
  assert.equal(probe.status, 200);
});
