import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuthService } from '../../src/auth/service.ts';
import { generateToken, hashToken, isDisplayPrefix, parseToken } from '../../src/auth/token-format.ts';
import type { Store } from '../../src/store/types.ts';
import { type StoreHarness, sqliteHarness } from '../store/harness.ts';

describe('token format', () => {
  test('crmp_<region>_ + 49 base62 characters (256 random bits + checksum); parse recovers region and prefix', () => {
    assert.ok(43 * Math.log2(62) >= 256);
    const { token, displayPrefix } = generateToken('eu');
    assert.match(token, /^crmp_eu_[0-9A-Za-z]{49}$/);
    assert.equal(displayPrefix, token.slice(0, 16));
    assert.deepEqual(parseToken(token), { region: 'eu', displayPrefix });
    assert.equal(parseToken(generateToken('us').token)?.region, 'us');
    assert.equal(new Set(Array.from({ length: 200 }, () => generateToken('eu').token)).size, 200);
  });

  test('parse rejects a changed character, wrong length, unknown region and other shapes', () => {
    const { token } = generateToken('eu');
    const at = 20;
    const flipped = token.slice(0, at) + (token[at] === 'a' ? 'b' : 'a') + token.slice(at + 1);
    assert.equal(parseToken(flipped), null, 'checksum catches a typo');
    assert.equal(parseToken(token.slice(0, -1)), null);
    assert.equal(parseToken(`${token}x`), null);
    assert.equal(parseToken(token.replace('crmp_eu_', 'crmp_ap_')), null);
    assert.equal(parseToken(token.replace('crmp_', 'CRMP_')), null);
    assert.equal(parseToken(''), null);
  });

  test('hashToken is a deterministic SHA-256; isDisplayPrefix', () => {
    const { token, displayPrefix } = generateToken('eu');
    assert.match(hashToken(token), /^[0-9a-f]{64}$/);
    assert.equal(hashToken(token), hashToken(token));
    assert.notEqual(hashToken(token), hashToken(generateToken('eu').token));
    assert.equal(isDisplayPrefix(displayPrefix), true);
    assert.equal(isDisplayPrefix(token), false);
    assert.equal(isDisplayPrefix('crmp_xx_AbCd1234'), false);
  });
});

describe('AuthService', () => {
  let h: StoreHarness;
  let store: Store;
  let connectionId: string;
  let nowMs = Date.parse('2026-01-01T00:00:00.000Z');
  const clock = () => new Date(nowMs);
  let lookups = 0;
  let touches = 0;

  before(async () => {
    h = await sqliteHarness();
    const real = await h.open();
    // Count store round trips to show what the cache and the last-used throttle save.
    store = {
      ...real,
      tokens: {
        ...real.tokens,
        findByPrefix: (p) => {
          lookups++;
          return real.tokens.findByPrefix(p);
        },
        touch: (id, now) => {
          touches++;
          return real.tokens.touch(id, now);
        },
      },
    };
    const c = await real.connections.insert({
      id: 'conn_auth',
      provider: 'hubspot',
      region: 'eu',
      label: null,
      instanceUrl: null,
      apiBaseUrl: null,
      sandbox: false,
      credentials: { keyId: 'k', ciphertext: 'v1.AA==' },
      now: clock().toISOString(),
    });
    connectionId = c.id;
  });
  after(async () => h?.cleanup());

  const service = (over: Partial<ConstructorParameters<typeof AuthService>[0]> = {}) =>
    new AuthService({
      store,
      region: 'eu',
      publicUrls: { us: 'https://us.crm-proxy.example.com' },
      clock,
      ...over,
    });

  async function code(auth: AuthService, header: string | undefined) {
    const r = await auth.verify(header);
    return r.ok ? 'ok' : r.code;
  }

  test('creates a token shown once and stored only as its hash', async () => {
    const auth = service();
    const r = await auth.createToken({ connectionId, name: 'ci' });
    assert.ok(r.ok);
    assert.match(r.token, /^crmp_eu_/);
    assert.equal(r.record.prefix, r.token.slice(0, 16));
    assert.equal(r.record.name, 'ci');
    assert.ok(!JSON.stringify(await auth.list()).includes(r.token));
    const [row] = await store.tokens.findByPrefix(r.record.prefix);
    assert.equal(row?.hash, hashToken(r.token));
    const missing = await auth.createToken({ connectionId: 'conn_nope' });
    assert.equal(missing.ok ? 'ok' : missing.code, 'connection_not_found');
  });

  test('verify: ok, with the token record and its connection (no secrets)', async () => {
    const auth = service();
    const t = await auth.createToken({ connectionId });
    assert.ok(t.ok);
    const r = await auth.verify(`bearer ${t.token}`);
    assert.ok(r.ok);
    assert.equal(r.token.id, t.record.id);
    assert.equal(r.connection.id, connectionId);
    assert.equal('credentials' in r.connection, false);
    assert.equal('hash' in r.token, false);
  });

  test('verify: missing, malformed, wrong region, unknown', async () => {
    const auth = service();
    const good = await auth.createToken({ connectionId });
    assert.ok(good.ok);
    assert.equal(await code(auth, undefined), 'missing_token');
    assert.equal(await code(auth, '  '), 'missing_token');
    assert.equal(await code(auth, `Basic ${good.token}`), 'malformed_token');
    assert.equal(await code(auth, 'Bearer'), 'malformed_token');
    assert.equal(await code(auth, 'Bearer not-a-token'), 'malformed_token');
    assert.equal(await code(auth, `Bearer ${good.token} extra`), 'malformed_token');
    assert.equal(await code(auth, `Bearer ${good.token.slice(0, -1)}`), 'malformed_token');

    const us = await auth.verify(`Bearer ${generateToken('us').token}`);
    assert.ok(!us.ok);
    assert.equal(us.code, 'wrong_region');
    assert.match(us.message, /us region.*https:\/\/us\.crm-proxy\.example\.com/);
    const usNoUrl = await service({ publicUrls: {} }).verify(`Bearer ${generateToken('us').token}`);
    assert.ok(!usNoUrl.ok);
    assert.match(usNoUrl.message, /the us region's base URL/);

    const stranger = generateToken('eu').token;
    const unknown = await auth.verify(`Bearer ${stranger}`);
    assert.equal(unknown.ok ? 'ok' : unknown.code, 'unknown_token');
    assert.ok(!unknown.ok && !unknown.message.includes(stranger));
  });

  test('verify: expired tokens, judged by the clock at each request even when cached', async () => {
    const auth = service();
    const t = await auth.createToken({ connectionId, expiresAt: new Date(nowMs + 60_000) });
    assert.ok(t.ok);
    assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    nowMs += 60_000;
    assert.equal(await code(auth, `Bearer ${t.token}`), 'expired_token');
  });

  test('the cache saves the lookup; revocation still applies to the very next request', async () => {
    const auth = service();
    const t = await auth.createToken({ connectionId });
    assert.ok(t.ok);
    const before = lookups;
    assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    assert.equal(lookups - before, 1, 'one store lookup for three requests');
    assert.ok((await auth.revoke(t.record.id)).ok);
    assert.equal(await code(auth, `Bearer ${t.token}`), 'revoked_token');
  });

  test('last_used_at is written at most once per interval, not per request', async () => {
    const auth = service({ lastUsedIntervalMs: 60_000 });
    const t = await auth.createToken({ connectionId });
    assert.ok(t.ok);
    const before = touches;
    for (let i = 0; i < 5; i++) assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    await auth.close();
    assert.equal(touches - before, 1);
    const first = (await store.tokens.findById(t.record.id))?.lastUsedAt;
    assert.equal(first, clock().toISOString());
    nowMs += 60_000;
    for (let i = 0; i < 5; i++) assert.equal(await code(auth, `Bearer ${t.token}`), 'ok');
    await auth.close();
    assert.equal(touches - before, 2);
    assert.equal((await store.tokens.findById(t.record.id))?.lastUsedAt, clock().toISOString());
  });

  test('revoke by id, by display prefix, by the token itself; already revoked, ambiguous, unknown', async () => {
    const auth = service();
    const mk = async () => {
      const r = await auth.createToken({ connectionId });
      assert.ok(r.ok);
      return r;
    };
    const [a, b, c] = [await mk(), await mk(), await mk()];
    assert.equal((await auth.revoke(a.record.id)).ok, true);
    assert.equal((await auth.revoke(b.record.prefix)).ok, true);
    assert.equal((await auth.revoke(c.token)).ok, true);
    const again = await auth.revoke(a.record.id);
    assert.equal(again.ok ? 'ok' : again.code, 'already_revoked');

    const shared = 'crmp_eu_SAMEPREF';
    for (const n of [1, 2]) {
      await store.tokens.insert({
        id: `tok_same${n}`,
        connectionId,
        name: null,
        prefix: shared,
        hash: `h${n}`,
        region: 'eu',
        expiresAt: null,
        now: clock().toISOString(),
      });
    }
    const amb = await auth.revoke(shared);
    assert.equal(amb.ok ? 'ok' : amb.code, 'ambiguous');
    const unknown = await auth.revoke('tok_nothing');
    assert.equal(unknown.ok ? 'ok' : unknown.code, 'not_found');
    const whole = generateToken('eu').token;
    const unknownWhole = await auth.revoke(whole);
    assert.ok(!unknownWhole.ok && !unknownWhole.message.includes(whole), 'a pasted token is not echoed');
  });
});
