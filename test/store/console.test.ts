import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OperatorService } from '../../src/admin/operators.ts';
import { RequestLog } from '../../src/admin/request-log.ts';
import type { RequestLogEntry, Store } from '../../src/store/types.ts';
import { dialects, type StoreHarness } from './harness.ts';

let seq = 0;
function entry(over: Partial<RequestLogEntry> = {}): Omit<RequestLogEntry, 'id'> {
  return {
    at: '2026-03-02T10:15:00.000Z',
    method: 'POST',
    path: '/v1/object/get/Account',
    status: 200,
    latencyMs: 12,
    crmCalls: 1,
    interface: null,
    requestId: `req_store_${seq++}`,
    tokenId: 'tok_a',
    connectionId: 'conn_a',
    errorCode: null,
    ...over,
  };
}

for (const { name, factory, skip } of await dialects()) {
  describe(`operators and the request log (${name})`, { skip }, () => {
    let h: StoreHarness;
    let store: Store;
    let now = Date.parse('2026-03-02T10:30:00Z');
    before(async () => {
      h = await factory();
      store = await h.open();
    });
    after(async () => h?.cleanup());

    test('operators: scrypt-hashed passwords, sessions with idle and absolute expiry, hashed keys', async () => {
      const ops = new OperatorService({ store, now: () => now });
      const op = await ops.create('Ops@Example.com', 'a long enough password');
      assert.equal(op.email, 'ops@example.com');
      await assert.rejects(ops.create('ops@example.com', 'another long password'), /exists already/);
      await assert.rejects(ops.create('x@example.com', 'short'), /at least 12/);
      assert.equal(await ops.checkPassword('ops@example.com', 'wrong password here'), null);
      assert.equal((await ops.checkPassword('OPS@example.com', 'a long enough password'))?.id, op.id);

      const { cookieValue, session } = await ops.startSession(op);
      assert.notEqual(session.idHash, cookieValue, 'the store keeps a hash of the cookie');
      assert.equal((await ops.session(cookieValue))?.operator.id, op.id);
      now += 59 * 60_000;
      assert.ok(await ops.session(cookieValue), 'used within the idle timeout');
      now += 61 * 60_000;
      assert.equal(await ops.session(cookieValue), null, 'idle too long');

      const { key, record } = await ops.createKey(op, 'ci');
      assert.equal((await ops.verifyKey(`Bearer ${key}`))?.operator.id, op.id);
      // The last character changed (to another one: a key may end in x).
      const altered = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
      assert.equal(await ops.verifyKey(`Bearer ${altered}`), null);
      assert.ok(await ops.revokeKey(record.id));
      assert.equal(await ops.verifyKey(`Bearer ${key}`), null);
    });

    test('operator lifecycle: disable, password and removal end sessions and keys in the store; the last manager stays', async () => {
      const ops = new OperatorService({ store, now: () => now });
      // Another instance on the same store: nothing of the first one's memory.
      const elsewhere = new OperatorService({ store, now: () => now });
      // From an empty list: the first operator manages the others.
      for (const o of await ops.list()) await store.operators.remove(o.id);
      const lead = await ops.create('lead@example.com', 'the lead passphrase');
      assert.equal(lead.canManage, true);
      const staff = await ops.create('staff@example.com', 'a staff passphrase');
      assert.equal(staff.canManage, false);
      const cli = { cli: 'root' } as const;
      const { cookieValue } = await ops.startSession(staff, { address: '10.0.0.1', userAgent: 'Test/1' });
      const { key } = await ops.createKey(staff, null);
      assert.ok(await elsewhere.session(cookieValue));
      const listed = await ops.listSessions(cli, staff.id);
      assert.deepEqual(
        listed.map((x) => [x.address, x.userAgent]),
        [['10.0.0.1', 'Test/1']],
      );

      await ops.disable(cli, staff.id);
      assert.equal(await elsewhere.session(cookieValue), null);
      assert.equal(await elsewhere.verifyKey(`Bearer ${key}`), null);
      assert.equal(await elsewhere.checkPassword('staff@example.com', 'a staff passphrase'), null);
      assert.equal((await ops.listSessions(cli, staff.id)).length, 0);
      await ops.enable(cli, staff.id);
      assert.ok(await elsewhere.checkPassword('staff@example.com', 'a staff passphrase'));

      const again = await ops.startSession(staff);
      const key2 = await ops.createKey(staff, null);
      await assert.rejects(
        ops.resetPassword({ operator: staff }, lead.id, 'a new lead passphrase'),
        /manage others/,
      );
      await ops.resetPassword({ operator: lead }, staff.id, 'a reset staff passphrase');
      assert.equal(await elsewhere.session(again.cookieValue), null);
      assert.equal(await elsewhere.verifyKey(`Bearer ${key2.key}`), null);

      await assert.rejects(ops.remove(cli, lead.id), /last enabled operator who can manage/);
      await assert.rejects(ops.disable(cli, lead.id), /last enabled operator who can manage/);
      const third = await ops.startSession(staff);
      await ops.remove(cli, staff.id);
      assert.equal(await elsewhere.session(third.cookieValue), null);
      assert.equal(await ops.find('staff@example.com'), null);
      await assert.rejects(ops.remove(cli, lead.id), /last operator cannot be removed/);
      // The first operator created again by another test must not clash.
      await ops.remove(
        cli,
        (await ops.create('spare@example.com', 'a spare passphrase', { canManage: true })).id,
      );
    });

    test('request log: batched writes, filters, usage per hour, pruning, connection stats', async () => {
      const log = new RequestLog({
        store,
        now: () => now,
        retentionMs: 7 * 86400_000,
        flushIntervalMs: 60_000,
      });
      log.record(entry());
      log.record(entry({ status: 502, errorCode: 'crm_error' }), undefined, 'crm_error: the CRM failed');
      log.record(entry({ at: '2026-03-02T11:05:00.000Z', status: 404 }), { used: 10, limit: 100 });
      log.record(entry({ at: '2026-02-20T10:00:00.000Z', connectionId: 'conn_b', tokenId: 'tok_b' }));
      assert.equal((await store.requestLog.query({ limit: 10 })).length, 0, 'nothing written before a flush');
      now = Date.parse('2026-03-02T11:30:00Z');
      const all = await log.query({ limit: 10 });
      assert.equal(all.length, 3, 'the entry older than 7 days was pruned at the flush');
      assert.deepEqual(
        (await log.query({ statusClass: 5, limit: 10 })).map((e) => e.status),
        [502],
      );
      assert.equal((await log.query({ tokenId: 'tok_b', limit: 10 })).length, 0);
      assert.equal((await log.query({ tokenId: 'tok_a', limit: 10 })).length, 3);
      assert.equal((await log.query({ requestId: all[0]?.requestId, limit: 10 })).length, 1);

      const usage = await log.usage(24, 'conn_a');
      assert.equal(usage.hours.length, 24);
      assert.deepEqual(
        usage.buckets.map((b) => [b.hour, b.requests, b.errors]),
        [
          ['2026-03-02T10', 2, 1],
          ['2026-03-02T11', 1, 1],
        ],
      );
      const stats = (await store.requestLog.stats()).find((s) => s.connectionId === 'conn_a');
      assert.deepEqual(stats?.allowance, { used: 10, limit: 100, at: '2026-03-02T11:05:00.000Z' });
      assert.equal(stats?.lastError, 'crm_error: the CRM failed');
      assert.equal(stats?.lastSuccessAt, '2026-03-02T11:05:00.000Z');

      now += 8 * 86400_000;
      assert.equal(await log.prune(), 3, 'every entry is older than 7 days now');
      await log.close();
    });

    test('request log: what is still buffered at shutdown is written by close()', async () => {
      const log = new RequestLog({
        store,
        now: () => now,
        retentionMs: 7 * 86400_000,
        flushIntervalMs: 3600_000,
      });
      const at = new Date(now).toISOString();
      log.record(entry({ at, requestId: 'req_at_shutdown' }));
      assert.equal((await store.requestLog.query({ requestId: 'req_at_shutdown', limit: 1 })).length, 0);
      await log.close();
      assert.equal((await store.requestLog.query({ requestId: 'req_at_shutdown', limit: 1 })).length, 1);
    });
  });
}
