import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureSandboxConnections } from '../../src/cli/sandbox-bootstrap.ts';
import { startStack } from '../helpers/stack.ts';

test('a later start reuses the sandbox connections and tokens, with the bootstrap credentials put back', async (t) => {
  const s = await startStack(t);
  const pair = { salesforce: s.sf, hubspot: s.hs, close: async () => {} };
  // As if the stored refresh token had moved on while the in-memory sandbox was restarted.
  await s.ctx.connections.reauthorize(s.connectionIds.salesforce, {
    kind: 'oauth',
    refreshToken: 'stale',
    accessToken: 'stale',
  });
  await s.ctx.connections.markNeedsReauth(s.connectionIds.salesforce, 'test');
  const again = await ensureSandboxConnections(s.ctx, pair, {
    base_url: s.baseUrl,
    tokens: s.tokens,
    sandboxes: {
      salesforce: { url: s.sf.url, access_token: s.sf.credentials.accessToken },
      hubspot: { url: s.hs.url, access_token: s.hs.credentials.accessToken },
    },
  });
  assert.deepEqual(again.tokens, s.tokens);
  assert.deepEqual(again.connectionIds, s.connectionIds);
  assert.equal((await s.ctx.connections.list()).length, 2);
  const found = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.equal(found?.connection.status, 'active');
  assert.equal(
    found?.credentials.kind === 'oauth' && found.credentials.refreshToken,
    s.sf.credentials.refreshToken,
  );
  assert.equal((await s.api('/v1/describe')).status, 200);
});

test('a lost sandbox.json gives new tokens for the same connections', async (t) => {
  const s = await startStack(t);
  const again = await ensureSandboxConnections(s.ctx, { salesforce: s.sf, hubspot: s.hs }, null);
  assert.deepEqual(again.connectionIds, s.connectionIds);
  assert.notEqual(again.tokens.salesforce, s.tokens.salesforce);
  assert.equal((await s.api('/v1/describe', { token: again.tokens.salesforce })).status, 200);
});
