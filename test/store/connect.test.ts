// Connect-flow storage on both dialects: states are single-use even under concurrent callbacks,
// links work once and can be revoked only while unused, and a re-connect records its account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../../src/store/types.ts';
import { dialects, iso, type StoreHarness } from './harness.ts';

const at = (offsetMs: number) => new Date(Date.parse('2026-03-01T12:00:00.000Z') + offsetMs).toISOString();

for (const { name, factory, skip } of await dialects()) {
  describe(`connect storage (${name})`, { skip }, () => {
    let h: StoreHarness;
    let store: Store;
    before(async () => {
      h = await factory();
      store = await h.open();
    });
    after(async () => h?.cleanup());

    test('a state is consumed once, even by concurrent callbacks on two instances; expired states are pruned', async () => {
      const other = await h.open();
      const row = {
        id: 'a'.repeat(64),
        provider: 'salesforce',
        loginUrl: 'https://login.salesforce.com',
        sandbox: false,
        label: 'Acme',
        reconnectId: null,
        linkId: null,
        returnTo: '/console/connections',
        bindingHash: 'b'.repeat(64),
        createdAt: at(0),
        expiresAt: at(600_000),
      };
      await store.connectStates.insert(row);
      assert.deepEqual(await other.connectStates.find(row.id), { ...row, usedAt: null });
      const wins = await Promise.all([
        store.connectStates.consume(row.id, at(1000)),
        other.connectStates.consume(row.id, at(1000)),
        store.connectStates.consume(row.id, at(1000)),
      ]);
      assert.deepEqual(wins.filter(Boolean).length, 1);
      assert.equal((await store.connectStates.find(row.id))?.usedAt, at(1000));
      assert.equal(await store.connectStates.consume('c'.repeat(64), at(1000)), false);
      assert.equal(await store.connectStates.prune(at(600_000)), 0);
      assert.equal(await store.connectStates.prune(at(600_001)), 1);
      assert.equal(await store.connectStates.find(row.id), null);
    });

    test('a link is found by its secret hash, used once, and revoked only while unused', async () => {
      const link = await store.connectLinks.insert({
        id: 'cl_one',
        secretHash: 'd'.repeat(64),
        provider: 'hubspot',
        label: null,
        loginUrl: null,
        createdAt: at(0),
        expiresAt: at(86_400_000),
      });
      assert.equal(link.usedAt, null);
      assert.equal((await store.connectLinks.findBySecretHash('d'.repeat(64)))?.id, 'cl_one');
      assert.equal(await store.connectLinks.findBySecretHash('e'.repeat(64)), null);
      const both = await Promise.all([
        store.connectLinks.consume('cl_one', at(5), 'conn_a'),
        store.connectLinks.consume('cl_one', at(5), 'conn_b'),
      ]);
      assert.equal(both.filter(Boolean).length, 1);
      assert.equal(await store.connectLinks.revoke('cl_one', at(6)), false);

      await store.connectLinks.insert({
        id: 'cl_two',
        secretHash: 'f'.repeat(64),
        provider: 'salesforce',
        label: 'x',
        loginUrl: 'https://test.salesforce.com',
        createdAt: at(1),
        expiresAt: at(86_400_000),
      });
      assert.equal(await store.connectLinks.revoke('cl_two', at(7)), true);
      assert.equal(await store.connectLinks.revoke('cl_two', at(8)), false);
      assert.equal(await store.connectLinks.consume('cl_two', at(9), 'conn_c'), false);
      await store.connectLinks.insert({
        id: 'cl_three',
        secretHash: '9'.repeat(64),
        provider: 'hubspot',
        label: null,
        loginUrl: null,
        createdAt: at(0),
        expiresAt: at(1000),
      });
      assert.equal(await store.connectLinks.consume('cl_three', at(1000), 'conn_d'), false, 'expired');
      const listed = await store.connectLinks.list();
      assert.deepEqual(
        listed.map((l) => [l.id, l.usedAt !== null, l.revokedAt]),
        [
          ['cl_two', false, at(7)],
          ['cl_one', true, null],
          ['cl_three', false, null],
        ],
      );
    });

    test('a connection records the account, login host and instance URL it was connected to', async () => {
      const c = await store.connections.insert({
        id: 'conn_connect_1',
        provider: 'salesforce',
        region: 'eu',
        label: null,
        instanceUrl: 'https://acme.my.salesforce.com',
        apiBaseUrl: null,
        sandbox: false,
        credentials: { keyId: 'k1', ciphertext: 'v1.x' },
        now: iso(),
        accountId: '00D000000000001AAA',
        loginUrl: 'https://test.salesforce.com',
      });
      assert.equal(c.accountId, '00D000000000001AAA');
      assert.equal(c.loginUrl, 'https://test.salesforce.com');
      assert.equal(
        await store.connections.setAccount(
          c.id,
          {
            accountId: '00D000000000001AAA',
            loginUrl: 'https://acme.my.salesforce.com',
            instanceUrl: 'https://acme2.my.salesforce.com',
          },
          iso(),
        ),
        true,
      );
      const found = await store.connections.find(c.id);
      assert.equal(found?.loginUrl, 'https://acme.my.salesforce.com');
      assert.equal(found?.instanceUrl, 'https://acme2.my.salesforce.com');
      assert.equal(
        await store.connections.setAccount(
          'conn_missing',
          { accountId: null, loginUrl: null, instanceUrl: null },
          iso(),
        ),
        false,
      );
    });
  });
}
