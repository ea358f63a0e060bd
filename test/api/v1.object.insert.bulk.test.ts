import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { countWhere, stored, type WriteAnswer } from './sf-writes-helpers.ts';

test('10 000 records through Bulk 2.0 with shuffled result files: duplicates and failures land at their own places', async (t) => {
  // Little of the org's daily allowance left: the service picks Bulk 2.0 itself.
  const s = await startStack(t, { salesforce: { bulkResultOrder: 'shuffled', apiRequestsUsed: 95_000 } });
  // Every 7th record is a copy of the one before it (identical rows), every 97th fails (no Name).
  const records = Array.from({ length: 10_000 }, (_, i) => {
    if (i % 97 === 5) return { Name: null, Amount__c: i };
    const n = i % 7 === 6 ? i - 1 : i;
    return { Name: `Bulk ${n}`, Amount__c: n, Paid__c: n % 2 === 0 };
  });
  s.sf.accounting.reset();
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Invoice__c', { body: { data: records } });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.match(answer.headers.get('x-crm-proxy-interface') ?? '', /^bulk2; reason=allowance-4%-left$/);
  assert.equal(answer.body.data.length, 10_000);
  const ids = new Set<string>();
  answer.body.data.forEach((r, i) => {
    const input = records[i];
    if (input?.Name === null) {
      assert.equal(r.success, false, `row ${i}`);
      assert.equal(r.errors[0]?.statusCode, 'REQUIRED_FIELD_MISSING');
      assert.deepEqual(r.errors[0]?.fields, ['Name']);
      assert.equal(r.id, null, 'a record not created carries id null');
      return;
    }
    assert.equal(r.success, true, `row ${i}: ${JSON.stringify(r)}`);
    assert.ok(r.id !== undefined && !ids.has(r.id), `row ${i} has its own id`);
    ids.add(r.id);
    const row = stored(s, r.id);
    assert.equal(row?.['Name'], input?.Name, `row ${i}`);
    assert.equal(row?.['Amount__c'], input?.Amount__c, `row ${i}`);
  });
  assert.equal(countWhere(s, 'Invoice__c', 'Name', 'Bulk '), ids.size);
  // One job: create, upload, close, a few polls, three result files.
  assert.equal(s.sf.accounting.count('bulk2.createJob'), 1);
  assert.equal(s.sf.accounting.count('collections.create'), 0);
});

test('10 000 records through collections: 50 calls of 200, results in order', async (t) => {
  const s = await startStack(t);
  const records = Array.from({ length: 10_000 }, (_, i) => ({ Name: `Coll ${i}` }));
  s.sf.accounting.reset();
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'collections' },
    body: { data: records },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=requested');
  assert.equal(s.sf.accounting.count('collections.create'), 50);
  answer.body.data.forEach((r, i) => {
    assert.equal(stored(s, r.id)?.['Name'], `Coll ${i}`);
  });
  assert.equal(countWhere(s, 'Account', 'Name', 'Coll '), 10_000);
});
