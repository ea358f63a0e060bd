import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, sharedStack } from '../helpers/stack.ts';
import { countWhere, injectFaults, outcomeCounts, stored, type WriteAnswer } from './sf-writes-helpers.ts';

// Calls run in parallel, so which one a fault hits is not fixed: writes are whole calls of 200.
// Writes whose answer Salesforce drops after applying them (`drop_answer`): the service asks
// Salesforce what it holds before answering, and nothing is ever written twice.

const stack = sharedStack();

async function fresh(): Promise<Stack> {
  const s = await stack();
  const cleared = await fetch(`${s.sf.url}/__sandbox/faults`, { method: 'DELETE' });
  assert.equal(cleared.status, 204);
  return s;
}

/** Each success names the stored record with the record's values; nothing is stored twice. */
function assertWrittenOnce(
  s: Stack,
  prefix: string,
  records: Array<Record<string, string>>,
  answer: WriteAnswer,
) {
  const ok = answer.data.filter((r) => r.success);
  assert.ok(countWhere(s, 'Account', 'Name', prefix) >= ok.length);
  answer.data.forEach((r, i) => {
    if (r.success) assert.equal(stored(s, r.id)?.['Name'], records[i]?.['Name'], `record ${i}`);
  });
}

const insert = (s: Stack, records: unknown[], via = 'collections') =>
  s.api<WriteAnswer>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': via },
    body: { data: records },
  });

const upsert = (s: Stack, record: Record<string, unknown>, matchKey: string) =>
  s.api<WriteAnswer>('/v1/object/upsert/Account', { body: { data: [record], match_key: matchKey } });

test('collections insert with an external id: a lost answer is reconciled; each record written once', async () => {
  const s = await fresh();
  const records = Array.from({ length: 400 }, (_, i) => ({ Name: `LostX ${i}`, External_Id__c: `LX-${i}` }));
  await injectFaults(s, [{ kind: 'drop_answer', match: 'collections.create', skip: 1 }]);
  const answer = await insert(s, records);
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 400 });
  assert.equal(countWhere(s, 'Account', 'Name', 'LostX '), 400);
  assertWrittenOnce(s, 'LostX ', records, answer.body);
});

test('collections insert with an external id: a call dropped before it was handled is found absent: not written', async () => {
  const s = await fresh();
  const records = Array.from({ length: 400 }, (_, i) => ({ Name: `DropX ${i}`, External_Id__c: `DX-${i}` }));
  await injectFaults(s, [{ kind: 'drop', match: 'collections.create', skip: 1 }]);
  const answer = await insert(s, records);
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 200, CRM_PROXY_NOT_WRITTEN: 200 });
  assert.equal(countWhere(s, 'Account', 'Name', 'DropX '), 200);
  assertWrittenOnce(s, 'DropX ', records, answer.body);
});

test('collections insert without an external id: a lost answer stays CRM_PROXY_OUTCOME_UNKNOWN, written once', async () => {
  const s = await fresh();
  const records = Array.from({ length: 400 }, (_, i) => ({ Name: `LostN ${i}` }));
  await injectFaults(s, [{ kind: 'drop_answer', match: 'collections.create', skip: 1 }]);
  const answer = await insert(s, records);
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 200, CRM_PROXY_OUTCOME_UNKNOWN: 200 });
  // Salesforce did write them: once each, and never again by the service.
  assert.equal(countWhere(s, 'Account', 'Name', 'LostN '), 400);
});

test('upsert by external id: every attempt losing its answer is reconciled by the external id', async () => {
  const s = await fresh();
  for (const times of [1, 3]) {
    await injectFaults(s, [{ kind: 'drop_answer', match: 'rest.sobject.upsert', times }]);
    const answer = await upsert(
      s,
      { Name: `LostU ${times}`, External_Id__c: `LU-${times}` },
      'External_Id__c',
    );
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.body.data[0]?.success, true, JSON.stringify(answer.body));
    assert.equal(stored(s, answer.body.data[0]?.id)?.['External_Id__c'], `LU-${times}`);
    assert.equal(countWhere(s, 'Account', 'External_Id__c', `LU-${times}`), 1);
  }
  // An existing record whose update lost every answer: it holds the values sent, so it was updated.
  await upsert(s, { Name: 'LostU old', External_Id__c: 'LU-old' }, 'External_Id__c');
  await injectFaults(s, [{ kind: 'drop_answer', match: 'rest.sobject.upsert', times: 3 }]);
  const updated = await upsert(s, { Name: 'LostU newer', External_Id__c: 'LU-old' }, 'External_Id__c');
  assert.equal(updated.body.data[0]?.success, true, JSON.stringify(updated.body));
  assert.equal(stored(s, updated.body.data[0]?.id)?.['Name'], 'LostU newer');
  // Every attempt dropped before it was handled: the record does not hold the values sent, and
  // whether an update is still to land cannot be told.
  await injectFaults(s, [{ kind: 'drop', match: 'rest.sobject.upsert', times: 3 }]);
  const dropped = await upsert(s, { Name: 'LostU newest', External_Id__c: 'LU-old' }, 'External_Id__c');
  assert.equal(dropped.body.data[0]?.errors[0]?.statusCode, 'CRM_PROXY_OUTCOME_UNKNOWN');
  assert.equal(countWhere(s, 'Account', 'External_Id__c', 'LU-old'), 1);
  // A new value, dropped before it was handled: no record holds it, nothing was written.
  await injectFaults(s, [{ kind: 'drop', match: 'rest.sobject.upsert', times: 3 }]);
  const absent = await upsert(s, { Name: 'LostU none', External_Id__c: 'LU-none' }, 'External_Id__c');
  assert.equal(absent.body.data[0]?.errors[0]?.statusCode, 'CRM_PROXY_NOT_WRITTEN');
  assert.equal(countWhere(s, 'Account', 'External_Id__c', 'LU-none'), 0);
});

test('upsert by a match field that is no external id: the lost insert is found by the field', async () => {
  const s = await fresh();
  await injectFaults(s, [{ kind: 'drop_answer', match: 'collections.create' }]);
  const answer = await upsert(s, { Name: 'LostM one', Phone: '+1 555 0100' }, 'Name');
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.headers.get('x-crm-proxy-upsert-action'), 'insert');
  assert.equal(answer.body.data[0]?.success, true, JSON.stringify(answer.body));
  assert.equal(stored(s, answer.body.data[0]?.id)?.['Name'], 'LostM one');
  assert.equal(countWhere(s, 'Account', 'Name', 'LostM one'), 1);
});

test('bulk 2.0 insert: lost answers of upload, close and results never leave a record unknown or doubled', async () => {
  const s = await fresh();
  const records = (p: string) =>
    Array.from({ length: 300 }, (_, i) => ({ Name: `${p} ${i}`, External_Id__c: `${p}-${i}` }));
  // The upload's answer lost: the job is aborted before it runs, so nothing is written.
  await injectFaults(s, [{ kind: 'drop_answer', match: 'bulk2.upload' }]);
  const aborted = await insert(s, records('LostBU'), 'bulk2');
  assert.equal(aborted.status, 502, aborted.text.slice(0, 300));
  assert.equal(countWhere(s, 'Account', 'Name', 'LostBU '), 0);
  // The close's and the results' answers lost: the job's state and a resent read recover them.
  await injectFaults(s, [
    { kind: 'drop_answer', match: 'bulk2.close' },
    { kind: 'drop_answer', match: 'bulk2.successfulResults' },
  ]);
  const list = records('LostBC');
  const closed = await insert(s, list, 'bulk2');
  assert.equal(closed.status, 200, closed.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(closed.body), { written: 300 });
  assert.equal(countWhere(s, 'Account', 'Name', 'LostBC '), 300);
  assertWrittenOnce(s, 'LostBC ', list, closed.body);
});
