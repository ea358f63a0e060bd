// ConnectionService and AuthService over a real store, for both dialects.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AuthService } from '../../src/auth/service.ts';
import { ConnectionService } from '../../src/connections/service.ts';
import type { Credentials } from '../../src/connections/types.ts';
import { CryptoError, createKeyring, type Keyring } from '../../src/crypto/envelope.ts';
import type { Store } from '../../src/store/types.ts';
import { eventually } from '../helpers/wait.ts';
import { dialects, type StoreHarness } from './harness.ts';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const SECRET = 'refresh-secret-5aa7e1';

async function waitForChange(store: Store, since: string): Promise<void> {
  // PostgreSQL's NOTIFY arrives asynchronously; SQLite's data_version moves at once.
  if (await eventually(async () => (await store.changes.version()) !== since)) return;
  assert.fail('change feed did not move');
}

for (const { name, factory, skip } of await dialects()) {
  describe(`connection and auth services (${name})`, { skip }, () => {
    let h: StoreHarness;
    let store: Store;
    let keyring: Keyring;
    let connections: ConnectionService;
    before(async () => {
      h = await factory();
      store = await h.open();
      keyring = createKeyring([k1]);
      connections = new ConnectionService({ store, keyring, region: 'eu' });
    });
    after(async () => h?.cleanup());

    async function salesforce(credentials: Credentials = { kind: 'oauth', refreshToken: SECRET }) {
      const r = await connections.create({
        provider: 'salesforce',
        instanceUrl: 'https://acme.my.salesforce.com/',
        credentials,
      });
      assert.ok(r.ok, r.ok ? '' : r.message);
      return r.connection;
    }

    test('create seals the credentials; get opens them; list carries no secret', async () => {
      const c = await salesforce({ kind: 'oauth', refreshToken: SECRET, accessToken: 'at-1', scope: 'api' });
      assert.equal(c.instanceUrl, 'https://acme.my.salesforce.com');
      assert.equal(c.region, 'eu');
      const raw = await store.connections.find(c.id);
      assert.equal(raw?.credentials.keyId, 'k1');
      assert.ok(!raw?.credentials.ciphertext.includes(SECRET));
      assert.ok(!raw?.credentials.ciphertext.includes(Buffer.from(SECRET).toString('base64').slice(0, 12)));
      const got = await connections.get(c.id);
      assert.deepEqual(got?.credentials, {
        kind: 'oauth',
        refreshToken: SECRET,
        accessToken: 'at-1',
        scope: 'api',
      });
      assert.equal(got?.version, 1);
      assert.ok(!JSON.stringify(await connections.list()).includes(SECRET));
      assert.equal(await connections.get('conn_missing'), null);
    });

    test('create refuses inconsistent input with a message naming the field', async () => {
      const cases: [Parameters<ConnectionService['create']>[0], RegExp][] = [
        [
          { provider: 'salesforce', credentials: { kind: 'oauth', refreshToken: 'x' } },
          /instanceUrl is required/,
        ],
        [
          {
            provider: 'salesforce',
            instanceUrl: 'http://acme.example',
            credentials: { kind: 'oauth', refreshToken: 'x' },
          },
          /https/,
        ],
        [
          {
            provider: 'salesforce',
            instanceUrl: 'https://a.example',
            credentials: { kind: 'private_app', token: 'x' },
          },
          /OAuth/,
        ],
        [
          {
            provider: 'hubspot',
            instanceUrl: 'https://a.example',
            credentials: { kind: 'private_app', token: 'x' },
          },
          /Salesforce connections only/,
        ],
        [{ provider: 'hubspot', credentials: { kind: 'oauth', refreshToken: '' } }, /refreshToken/],
      ];
      for (const [input, message] of cases) {
        const r = await connections.create(input);
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.message, message);
      }
      const sandboxed = await connections.create({
        provider: 'hubspot',
        apiBaseUrl: 'http://127.0.0.1:9999',
        sandbox: true,
        credentials: { kind: 'private_app', token: 'pat' },
      });
      assert.ok(sandboxed.ok);
    });

    test('compareAndSetCredentials: two concurrent refreshes from one version, one wins and is what get returns', async () => {
      const c = await salesforce();
      const other = new ConnectionService({ store: await h.open(), keyring, region: 'eu' });
      const { version } = (await connections.get(c.id))!;
      const [a, b] = await Promise.all([
        connections.compareAndSetCredentials(c.id, version, {
          kind: 'oauth',
          refreshToken: 'rotated-A',
          accessToken: 'A',
        }),
        other.compareAndSetCredentials(c.id, version, {
          kind: 'oauth',
          refreshToken: 'rotated-B',
          accessToken: 'B',
        }),
      ]);
      assert.equal(Number(a) + Number(b), 1);
      const now = await other.get(c.id);
      assert.equal(now?.version, version + 1);
      assert.equal(
        now?.credentials.kind === 'oauth' && now.credentials.refreshToken,
        a ? 'rotated-A' : 'rotated-B',
      );
    });

    test('markNeedsReauth and markActive', async () => {
      const c = await salesforce();
      assert.equal(await connections.markNeedsReauth(c.id, 'the CRM rejected the refresh token'), true);
      const got = await connections.get(c.id);
      assert.equal(got?.connection.status, 'needs_reauth');
      assert.equal(got?.connection.statusReason, 'the CRM rejected the refresh token');
      await connections.markActive(c.id);
      assert.equal((await connections.get(c.id))?.connection.status, 'active');
    });

    test('reauthorize replaces credentials whatever their version and reactivates the connection', async () => {
      const c = await salesforce();
      await connections.compareAndSetCredentials(c.id, 1, { kind: 'oauth', refreshToken: 'r2' });
      await connections.markNeedsReauth(c.id, 'refresh token expired');
      assert.equal(await connections.reauthorize(c.id, { kind: 'oauth', refreshToken: 'fresh' }), 'updated');
      const got = await connections.get(c.id);
      assert.deepEqual(got?.credentials, { kind: 'oauth', refreshToken: 'fresh' });
      assert.equal(got?.version, 3);
      assert.equal(got?.connection.status, 'active');
      assert.equal(got?.connection.statusReason, null);
      assert.equal(await connections.reauthorize(c.id, { kind: 'private_app', token: 'x' }), 'invalid');
      assert.equal(
        await connections.reauthorize('conn_missing', { kind: 'oauth', refreshToken: 'x' }),
        'not_found',
      );
    });

    test('a ciphertext moved onto another connection does not open (associated data)', async () => {
      const a = await salesforce();
      const b = await salesforce({ kind: 'oauth', refreshToken: 'other' });
      const sealedA = (await store.connections.find(a.id))!.credentials;
      await store.connections.replaceSealed(b.id, 1, sealedA, new Date().toISOString());
      await assert.rejects(connections.get(b.id), CryptoError);
    });

    test('resealAll moves every connection to the active key, is idempotent, and the old key can then go', async () => {
      const h2 = await factory();
      try {
        const s = await h2.open();
        const old = new ConnectionService({ store: s, keyring: createKeyring([k1]), region: 'eu' });
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const r = await old.create({
            provider: 'hubspot',
            credentials: { kind: 'private_app', token: `pat-${i}` },
          });
          assert.ok(r.ok);
          ids.push(r.connection.id);
        }
        const rotating = new ConnectionService({
          store: s,
          keyring: createKeyring([k1, k2], 'k2'),
          region: 'eu',
        });
        assert.deepEqual(await rotating.resealAll(), { resealed: 3, current: 0, failed: [] });
        assert.deepEqual(await rotating.resealAll(), { resealed: 0, current: 3, failed: [] });
        const onlyNew = new ConnectionService({ store: s, keyring: createKeyring([k2]), region: 'eu' });
        for (const [i, id] of ids.entries()) {
          const got = await onlyNew.get(id);
          assert.deepEqual(got?.credentials, { kind: 'private_app', token: `pat-${i}` });
          assert.equal(got?.version, 1, 're-encryption does not count as a credential change');
        }
        await assert.rejects(
          old.get(ids[0]!),
          (e: unknown) => e instanceof CryptoError && !e.message.includes('pat-0'),
        );
      } finally {
        await h2.cleanup();
      }
    });

    test('auth: revocation takes effect at once despite the cache, here and in another instance', async () => {
      const c = await salesforce();
      const authA = new AuthService({ store, region: 'eu', publicUrls: {} });
      const storeB = await h.open();
      const authB = new AuthService({ store: storeB, region: 'eu', publicUrls: {} });
      const one = await authA.createToken({ connectionId: c.id });
      const two = await authA.createToken({ connectionId: c.id });
      assert.ok(one.ok && two.ok);
      const header = (t: string) => `Bearer ${t}`;
      assert.equal((await authA.verify(header(one.token))).ok, true);
      assert.equal((await authA.verify(header(two.token))).ok, true, 'both now cached in A');

      assert.ok((await authA.revoke(one.record.id)).ok);
      const r1 = await authA.verify(header(one.token));
      assert.equal(r1.ok ? 'ok' : r1.code, 'revoked_token');
      assert.equal(
        (await authA.verify(header(two.token))).ok,
        true,
        'two cached again after the local change',
      );

      const sinceA = await store.changes.version();
      assert.ok((await authB.revoke(two.record.prefix)).ok);
      await waitForChange(store, sinceA);
      const r2 = await authA.verify(header(two.token));
      assert.equal(r2.ok ? 'ok' : r2.code, 'revoked_token');
      await authA.close();
      await authB.close();
    });

    test('auth: removing the connection invalidates its cached tokens', async () => {
      const c = await salesforce();
      const auth = new AuthService({ store, region: 'eu', publicUrls: {} });
      const t = await auth.createToken({ connectionId: c.id, name: 'ci' });
      assert.ok(t.ok);
      const ok = await auth.verify(`Bearer ${t.token}`);
      assert.ok(ok.ok);
      assert.equal(ok.connection.id, c.id);
      assert.equal('credentials' in ok.connection, false);
      await connections.remove(c.id);
      const gone = await auth.verify(`Bearer ${t.token}`);
      assert.equal(gone.ok ? 'ok' : gone.code, 'unknown_token');
      await auth.close();
    });
  });
}
