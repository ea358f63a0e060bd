import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { NewConnectionRow, Store } from '../../src/store/types.ts';
import { eventually } from '../helpers/wait.ts';
import { dialects, iso, PG_URL, type StoreHarness } from './harness.ts';

let seq = 0;
function connRow(over: Partial<NewConnectionRow> = {}): NewConnectionRow {
  return {
    id: `conn_test${seq++}_${Date.now()}`,
    provider: 'salesforce',
    region: 'eu',
    label: 'Acme',
    instanceUrl: 'https://acme.my.salesforce.com',
    apiBaseUrl: null,
    sandbox: false,
    credentials: { keyId: 'k1', ciphertext: 'v1.c2VhbGVk' },
    now: iso(),
    ...over,
  };
}

for (const { name, factory, skip } of await dialects()) {
  describe(`store repositories (${name})`, { skip }, () => {
    let h: StoreHarness;
    let store: Store;
    before(async () => {
      h = await factory();
      store = await h.open();
    });
    after(async () => h?.cleanup());

    test('reports its dialect, and a second open on the same database finds the schema migrated', async () => {
      assert.equal(store.dialect, name);
      const again = await h.open();
      const c = await again.connections.insert(connRow());
      assert.equal((await store.connections.find(c.id))?.id, c.id);
    });

    test('several instances opening an empty database at once all succeed (migrations run once)', async () => {
      const fresh = await factory();
      try {
        const opened = await Promise.all([fresh.open(), fresh.open(), fresh.open()]);
        const c = await opened[0]!.connections.insert(connRow());
        for (const s of opened) assert.equal((await s.connections.find(c.id))?.id, c.id);
      } finally {
        await fresh.cleanup();
      }
    });

    test('connections: insert, find with sealed credentials, list without them', async () => {
      const row = connRow({
        provider: 'hubspot',
        instanceUrl: null,
        apiBaseUrl: 'http://127.0.0.1:1234',
        sandbox: true,
      });
      const c = await store.connections.insert(row);
      assert.deepEqual(c, {
        id: row.id,
        provider: 'hubspot',
        region: 'eu',
        label: 'Acme',
        instanceUrl: null,
        apiBaseUrl: 'http://127.0.0.1:1234',
        sandbox: true,
        status: 'active',
        statusReason: null,
        credentialsVersion: 1,
        createdAt: row.now,
        updatedAt: row.now,
        accountId: null,
        loginUrl: null,
      });
      const found = await store.connections.find(row.id);
      assert.deepEqual(found?.credentials, row.credentials);
      const listed = (await store.connections.list()).find((x) => x.id === row.id);
      assert.deepEqual(listed, c);
      assert.equal('credentials' in (listed ?? {}), false);
      assert.equal(await store.connections.find('conn_missing'), null);
    });

    test('compare-and-set: two concurrent writers with the same version, exactly one wins', async () => {
      const other = await h.open();
      const c = await store.connections.insert(connRow());
      const results = await Promise.all([
        store.connections.compareAndSetCredentials(c.id, 1, { keyId: 'k1', ciphertext: 'v1.QQ==' }, iso()),
        other.connections.compareAndSetCredentials(c.id, 1, { keyId: 'k1', ciphertext: 'v1.Qg==' }, iso()),
      ]);
      assert.deepEqual([...results].sort(), [false, true]);
      const after = await store.connections.find(c.id);
      assert.equal(after?.credentialsVersion, 2);
      assert.equal(after?.credentials.ciphertext, results[0] ? 'v1.QQ==' : 'v1.Qg==');
      // The loser re-reads and retries with the new version.
      assert.equal(
        await other.connections.compareAndSetCredentials(
          c.id,
          2,
          { keyId: 'k1', ciphertext: 'v1.Qw==' },
          iso(),
        ),
        true,
      );
      assert.equal((await store.connections.find(c.id))?.credentialsVersion, 3);
    });

    test('compare-and-set under many concurrent writers: versions advance by exactly the number of winners', async () => {
      const c = await store.connections.insert(connRow());
      const instances = [store, await h.open(), await h.open()];
      let wins = 0;
      await Promise.all(
        instances.map(async (s, i) => {
          for (let n = 0; n < 10; n++) {
            const cur = await s.connections.find(c.id);
            const ok = await s.connections.compareAndSetCredentials(
              c.id,
              cur!.credentialsVersion,
              { keyId: 'k1', ciphertext: `v1.${i}${n}` },
              iso(),
            );
            if (ok) wins++;
          }
        }),
      );
      assert.ok(wins >= 10);
      assert.equal((await store.connections.find(c.id))?.credentialsVersion, 1 + wins);
    });

    test('replaceSealed keeps the version and fails on a stale one', async () => {
      const c = await store.connections.insert(connRow());
      assert.equal(
        await store.connections.replaceSealed(c.id, 1, { keyId: 'k2', ciphertext: 'v1.eA==' }, iso()),
        true,
      );
      const row = await store.connections.find(c.id);
      assert.equal(row?.credentialsVersion, 1);
      assert.deepEqual(row?.credentials, { keyId: 'k2', ciphertext: 'v1.eA==' });
      assert.equal(
        await store.connections.replaceSealed(c.id, 7, { keyId: 'k3', ciphertext: 'v1.eQ==' }, iso()),
        false,
      );
    });

    test('setStatus records needs_reauth with its reason and back', async () => {
      const c = await store.connections.insert(connRow());
      assert.equal(
        await store.connections.setStatus(c.id, 'needs_reauth', 'refresh token revoked', iso()),
        true,
      );
      const row = await store.connections.find(c.id);
      assert.equal(row?.status, 'needs_reauth');
      assert.equal(row?.statusReason, 'refresh token revoked');
      await store.connections.setStatus(c.id, 'active', null, iso());
      assert.equal((await store.connections.find(c.id))?.status, 'active');
      assert.equal(await store.connections.setStatus('conn_missing', 'active', null, iso()), false);
    });

    test('tokens: insert, find by prefix with hash, list per connection, revoke once, touch', async () => {
      const a = await store.connections.insert(connRow());
      const b = await store.connections.insert(connRow());
      const base = { name: null, region: 'eu' as const, expiresAt: null, now: iso() };
      const t1 = await store.tokens.insert({
        ...base,
        id: `tok_a${seq++}`,
        connectionId: a.id,
        prefix: 'crmp_eu_AAAAAAAA',
        hash: `h1${seq}`,
      });
      await store.tokens.insert({
        ...base,
        id: `tok_b${seq++}`,
        connectionId: a.id,
        prefix: 'crmp_eu_AAAAAAAA',
        hash: `h2${seq}`,
      });
      await store.tokens.insert({
        ...base,
        id: `tok_c${seq++}`,
        connectionId: b.id,
        prefix: 'crmp_eu_BBBBBBBB',
        hash: `h3${seq}`,
      });
      const byPrefix = await store.tokens.findByPrefix('crmp_eu_AAAAAAAA');
      assert.ok(byPrefix.length >= 2);
      assert.ok(byPrefix.every((t) => typeof t.hash === 'string' && t.prefix === 'crmp_eu_AAAAAAAA'));
      assert.equal((await store.tokens.list(a.id)).length, 2);
      assert.equal((await store.tokens.list(b.id)).length, 1);
      assert.equal('hash' in ((await store.tokens.list(a.id))[0] ?? {}), false);
      assert.deepEqual(await store.tokens.findById(t1.id), t1);

      assert.equal(await store.tokens.revoke(t1.id, iso()), true);
      assert.equal(await store.tokens.revoke(t1.id, iso()), false);
      assert.notEqual((await store.tokens.findById(t1.id))?.revokedAt, null);

      const when = iso();
      await store.tokens.touch(t1.id, when);
      assert.equal((await store.tokens.findById(t1.id))?.lastUsedAt, when);
    });

    test('removing a connection removes its tokens', async () => {
      const c = await store.connections.insert(connRow());
      await store.tokens.insert({
        id: `tok_r${seq++}`,
        connectionId: c.id,
        name: 'x',
        prefix: 'crmp_eu_RRRRRRRR',
        hash: `hr${seq}`,
        region: 'eu',
        expiresAt: null,
        now: iso(),
      });
      assert.equal(await store.connections.remove(c.id), true);
      assert.equal(await store.connections.remove(c.id), false);
      assert.deepEqual(await store.tokens.list(c.id), []);
    });

    test('the change feed moves on revocation, in this instance at once and in another one', async () => {
      const other = await h.open();
      const c = await store.connections.insert(connRow());
      const t = await store.tokens.insert({
        id: `tok_f${seq++}`,
        connectionId: c.id,
        name: null,
        prefix: 'crmp_eu_FFFFFFFF',
        hash: `hf${seq}`,
        region: 'eu',
        expiresAt: null,
        now: iso(),
      });
      const before = await store.changes.version();
      const otherBefore = await other.changes.version();
      assert.equal(await store.changes.version(), before, 'stable while nothing changes');
      await store.tokens.revoke(t.id, iso());
      assert.notEqual(await store.changes.version(), before);
      // PostgreSQL delivers the NOTIFY asynchronously: wait for it (bounded) rather than assume a delay.
      const moved = await eventually(async () => (await other.changes.version()) !== otherBefore);
      assert.ok(moved, 'the other instance saw the change');
    });

    // Only PostgreSQL has a listening connection to lose.
    const pgOnly = name === 'postgres' ? test : () => {};
    pgOnly(
      'PostgreSQL: when the LISTEN connection drops, a change made meanwhile is still seen',
      async () => {
        const other = await h.open();
        const c = await store.connections.insert(connRow());
        const before = await store.changes.version();
        const admin = new pg.Client({ connectionString: PG_URL });
        await admin.connect();
        try {
          const killed = await admin.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where query = $1',
            [`LISTEN "crm_proxy_changes_${h.location[2]}"`],
          );
          assert.ok(killed.rowCount && killed.rowCount >= 1);
        } finally {
          await admin.end();
        }
        // Published while nobody listens: the notification itself is lost.
        await other.connections.setStatus(c.id, 'needs_reauth', 'x', iso());
        const moved = await eventually(async () => (await store.changes.version()) !== before);
        assert.ok(moved, 'the feed moved (outage or reconnection), so caches were dropped');
        // After reconnecting, the feed is stable again and NOTIFY works.
        let stable = '';
        await eventually(async () => {
          const a = await store.changes.version();
          const b = await store.changes.version();
          if (a === b) stable = a;
          return a === b;
        });
        assert.notEqual(stable, '', 'listener reconnected');
        await other.connections.setStatus(c.id, 'active', null, iso());
        const again = await eventually(async () => (await store.changes.version()) !== stable);
        assert.ok(again);
      },
    );
  });
}
