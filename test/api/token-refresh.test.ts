import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

async function storedRefreshToken(s: Awaited<ReturnType<typeof startStack>>): Promise<string> {
  const found = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.ok(found !== null && found.credentials.kind === 'oauth');
  return found.credentials.refreshToken;
}

/** Runs at most `size` functions at a time, the rest in order as slots free up. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

test('refresh storm: 1 000 concurrent requests on an expired access token cause exactly one refresh', async (t) => {
  const s = await startStack(t);
  const [id] = s.sf.org.insert('Account', [{ Name: 'Storm' }]).map((r) => r.id);
  assert.ok(id !== undefined);
  // Warm up: the access token is cached in memory and the describe cache is filled.
  assert.equal((await s.api('/v1/object/get/Account', { body: { data: { ids: [id] } } })).status, 200);

  const expired = await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.ok(expired.ok);
  s.sf.accounting.reset();
  // All 1 000 are issued at once; at most 256 hold a connection at a time. More fresh connections
  // than the listen backlog (511) make a busy machine reset some before the service sees them.
  const slots = new Slots(256);
  const answers = await Promise.all(
    Array.from({ length: 1000 }, () =>
      slots.run(() =>
        s.api<{ data: Array<{ Id: string } | null> }>('/v1/object/get/Account', {
          body: { data: { ids: [id], fields: ['Name'] } },
        }),
      ),
    ),
  );
  const statuses = new Map<number, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  assert.deepEqual([...statuses], [[200, 1000]]);
  assert.ok(answers.every((a) => a.body.data[0]?.Id === id));
  assert.equal(s.sf.accounting.count('oauth.token.refresh_token'), 1);
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
