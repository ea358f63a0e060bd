import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedStack, startStack } from '../helpers/stack.ts';
import { countWhere, type ErrorBody, stored, type WriteAnswer } from './sf-writes-helpers.ts';

/** One stack for the file: every test makes its own records and resets the accounting it counts. */
const stack = sharedStack();

test('insert: one result per record in order, partial failure, case-insensitive fields, formatting', async () => {
  const s = await stack();
  const answer = await s.api<WriteAnswer>('/v1/object/insert/invoice__c', {
    body: {
      data: [
        {
          name: 'Inv 1',
          amount__c: 12.5,
          PAID__C: true,
          tags__c: ['Priority', 'Recurring'],
          due_date__c: '2025-01-31',
        },
        { amount__c: 3 },
        { attributes: { type: 'Invoice__c' }, Name: 'Inv 3', Status__c: 'Nope' },
        { Name: 'Inv 4', notes__c: null },
      ],
    },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=under-2000-records');
  const [a, b, c, d] = answer.body.data;
  assert.equal(answer.body.data.length, 4);
  assert.equal(a?.success, true);
  assert.match(String(a?.id), /^a0B/);
  assert.equal(b?.success, false);
  assert.equal(b?.id, null, 'a record not created carries id null');
  assert.equal(b?.errors[0]?.statusCode, 'REQUIRED_FIELD_MISSING');
  assert.deepEqual(b?.errors[0]?.fields, ['Name']);
  assert.equal(c?.success, false);
  assert.equal(c?.errors[0]?.statusCode, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
  assert.equal(d?.success, true);
  const row = stored(s, a?.id);
  assert.equal(row?.['Tags__c'], 'Priority;Recurring');
  assert.equal(row?.['Paid__c'], true);
  assert.equal(row?.['Due_Date__c'], '2025-01-31');
  assert.equal(countWhere(s, 'Invoice__c', 'Name', 'Inv '), 2);
});

test('insert: an unknown field is a 400 naming it and the closest real field; nothing is written', async () => {
  const s = await stack();
  s.sf.accounting.reset();
  const answer = await s.api<ErrorBody>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Fine' }, { Name: 'Typo', Industy: 'Energy' }] },
  });
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, 'unknown_field');
  assert.match(answer.body.error.message, /"Industy" \(did you mean "Industry"\?\)/);
  assert.equal(answer.body.error.details[0]?.['path'], '/data/1/Industy');
  assert.equal(s.sf.accounting.count('collections.create'), 0);
});

test('insert: every page of records is checked before any is sent: an unknown field on the last page fails the whole request', async () => {
  const s = await stack();
  s.sf.accounting.reset();
  const data: Array<Record<string, unknown>> = Array.from({ length: 450 }, (_, i) => ({
    Name: `Paged ${i}`,
  }));
  data[449] = { Name: 'Typo', Industy: 'Energy' };
  for (const via of ['collections', 'bulk2']) {
    const answer = await s.api<ErrorBody>('/v1/object/insert/Account', {
      body: { data },
      headers: { 'x-crm-proxy-interface': via },
    });
    assert.equal(answer.status, 400, via);
    assert.equal(answer.body.error.details[0]?.['path'], '/data/449/Industy');
  }
  assert.equal(s.sf.accounting.count('collections.create'), 0);
  assert.equal(s.sf.accounting.count('bulk2.createJob'), 0);
  assert.equal(countWhere(s, 'Account', 'Name', 'Paged '), 0);
});

test('insert: a parent reference by external id, through collections and through bulk', async () => {
  const s = await stack();
  s.sf.org.insert('Account', [{ Name: 'Parent', External_Id__c: 'A-1' }]);
  const parentId = s.sf.org.query("SELECT Id FROM Account WHERE External_Id__c = 'A-1'", {}).records[0]?.[
    'Id'
  ];
  for (const via of ['collections', 'bulk2']) {
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Contact', {
      headers: { 'x-crm-proxy-interface': via },
      body: { data: [{ LastName: `Child ${via}`, Account: { External_Id__c: 'A-1' } }] },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('x-crm-proxy-interface'), `${via}; reason=requested`);
    const id = answer.body.data[0]?.id;
    assert.ok(id, answer.text);
    assert.equal(stored(s, id)?.['AccountId'], parentId);
  }
});

test('insert: the same records through collections and bulk give the same results, errors included', async () => {
  const s = await stack();
  // Every record has every column: a blank CSV cell means "not set", which the sandbox's Bulk
  // emulation rejects for restricted picklists, so the comparison keeps to values both paths share.
  const records = [
    { Name: 'Same A', Amount__c: 1, Status__c: 'Sent', Tags__c: ['Disputed'], Paid__c: false },
    { Name: null, Amount__c: 2, Status__c: 'Draft', Tags__c: [], Paid__c: true },
    { Name: 'Same B', Amount__c: 3, Status__c: 'Bogus', Tags__c: ['Priority'], Paid__c: true },
    { Name: 'Same C', Amount__c: null, Status__c: 'Paid', Tags__c: ['Priority', 'Recurring'], Paid__c: true },
  ];
  const shape = (a: WriteAnswer) =>
    a.data.map((r) => ({ success: r.success, errors: r.errors, hasId: r.id !== undefined }));
  const viaCollections = await s.api<WriteAnswer>('/v1/object/insert/Invoice__c', {
    headers: { 'x-crm-proxy-interface': 'collections' },
    body: { data: records },
  });
  const viaBulk = await s.api<WriteAnswer>('/v1/object/insert/Invoice__c', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: records },
  });
  assert.equal(viaCollections.status, 200, viaCollections.text);
  assert.equal(viaBulk.status, 200, viaBulk.text);
  assert.equal(viaBulk.headers.get('x-crm-proxy-interface'), 'bulk2; reason=requested');
  assert.deepEqual(shape(viaBulk.body), shape(viaCollections.body));
  assert.equal(shape(viaBulk.body).filter((r) => r.success).length, 2);
  const bulkA = stored(s, viaBulk.body.data[0]?.id);
  assert.equal(bulkA?.['Name'], 'Same A');
  assert.equal(bulkA?.['Tags__c'], 'Disputed');
});

test('insert: the bulk threshold comes from CRM_PROXY_SF_BULK_THRESHOLD, the allowance share from CRM_PROXY_SALESFORCE_FRUGAL_BELOW', async (t) => {
  // 1: frugal whenever any of the allowance is used (the describe of the first write uses some).
  const s = await startStack(t, {
    env: { CRM_PROXY_SF_BULK_THRESHOLD: '3', CRM_PROXY_SALESFORCE_FRUGAL_BELOW: '1' },
  });
  const two = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'a' }, { Name: 'b' }] },
  });
  assert.equal(two.headers.get('x-crm-proxy-interface'), 'collections; reason=under-3-records');
  const three = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'a' }, { Name: 'b' }, { Name: 'c' }] },
  });
  assert.equal(three.status, 200, three.text);
  assert.equal(three.headers.get('x-crm-proxy-interface'), 'bulk2; reason=allowance-99%-left');
  assert.equal(three.body.data.filter((r) => r.success).length, 3);
  const bad = await s.api<ErrorBody>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'soap' },
    body: { data: [{ Name: 'a' }] },
  });
  assert.equal(bad.status, 400);
});
