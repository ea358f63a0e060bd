import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { countWhere, type ErrorBody, stored, type WriteAnswer } from './sf-writes-helpers.ts';

type Stack = Awaited<ReturnType<typeof startStack>>;

const upsert = (s: Stack, object: string, record: Record<string, unknown>, matchKey: string) =>
  s.api<WriteAnswer>(`/v1/object/upsert/${object}`, { body: { data: [record], match_key: matchKey } });

test('upsert on Id: updates an existing record, creates one when the id matches nothing', async (t) => {
  const s = await startStack(t);
  const [id] = s.sf.org.insert('Account', [{ Name: 'Before' }]).map((r) => String(r.id));
  const updated = await upsert(s, 'Account', { id, name: 'After' }, 'id');
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.headers.get('x-crm-proxy-upsert-action'), 'update');
  assert.deepEqual(updated.body.data, [{ id, success: true, errors: [] }]);
  assert.equal(stored(s, id)?.['Name'], 'After');

  const created = await upsert(s, 'Account', { Id: '001000000000000AAA', Name: 'Fresh' }, 'Id');
  assert.equal(created.status, 200, created.text);
  assert.equal(created.headers.get('x-crm-proxy-upsert-action'), 'insert');
  const newId = created.body.data[0]?.id;
  assert.ok(newId !== undefined && newId !== '001000000000000AAA');
  assert.equal(stored(s, newId)?.['Name'], 'Fresh');
});

test('upsert on an External ID field: Salesforce’s own upsert creates, then updates; several matches write nothing', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const first = await upsert(s, 'Account', { External_Id__c: 'EXT-1', Name: 'One' }, 'external_id__c');
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('x-crm-proxy-upsert-action'), 'external_id_upsert');
  const id = first.body.data[0]?.id;
  assert.ok(id);
  const second = await upsert(s, 'Account', { External_Id__c: 'EXT-1', Name: 'One again' }, 'External_Id__c');
  assert.deepEqual(second.body.data, [{ id, success: true, errors: [] }]);
  assert.equal(stored(s, id)?.['Name'], 'One again');
  assert.equal(countWhere(s, 'Account', 'External_Id__c', 'EXT-1'), 1);
  assert.equal(s.sf.accounting.count('rest.query'), 0);

  // Legacy_Ref__c is an external id without uniqueness: two invoices share a value.
  s.sf.org.insert('Invoice__c', [
    { Name: 'L1', Legacy_Ref__c: 'L-1' },
    { Name: 'L2', Legacy_Ref__c: 'L-1' },
  ]);
  const ambiguous = await upsert(s, 'Invoice__c', { Legacy_Ref__c: 'L-1', Name: 'Changed' }, 'Legacy_Ref__c');
  assert.equal(ambiguous.status, 200, ambiguous.text);
  const [r] = ambiguous.body.data;
  assert.equal(r?.success, false);
  assert.equal(r?.errors[0]?.statusCode, 'DUPLICATE_EXTERNAL_ID');
  assert.equal(countWhere(s, 'Invoice__c', 'Name', 'Changed'), 0);
});

test('upsert on another field: lookup then 0 → insert, 1 → update, 2 → error and no write', async (t) => {
  const s = await startStack(t);
  const created = await upsert(s, 'Contact', { Email: 'ada@example.com', LastName: 'Ng' }, 'email');
  assert.equal(created.status, 200, created.text);
  assert.equal(created.headers.get('x-crm-proxy-upsert-action'), 'insert');
  const id = created.body.data[0]?.id;
  assert.ok(id);
  const updated = await upsert(s, 'Contact', { Email: 'ada@example.com', LastName: 'Lovelace' }, 'Email');
  assert.equal(updated.headers.get('x-crm-proxy-upsert-action'), 'update');
  assert.deepEqual(updated.body.data, [{ id, success: true, errors: [] }]);
  assert.equal(stored(s, id)?.['LastName'], 'Lovelace');

  s.sf.org.insert('Contact', [
    { LastName: 'Twin', Email: 'twin@example.com' },
    { LastName: 'Twin', Email: 'twin@example.com' },
  ]);
  const before = countWhere(s, 'Contact', 'LastName', 'Twin');
  const ambiguous = await upsert(s, 'Contact', { Email: 'twin@example.com', LastName: 'Twin3' }, 'Email');
  assert.equal(ambiguous.headers.get('x-crm-proxy-upsert-action'), 'ambiguous');
  assert.equal(ambiguous.body.data[0]?.success, false);
  assert.equal(ambiguous.body.data[0]?.errors[0]?.statusCode, 'DUPLICATE_EXTERNAL_ID');
  assert.equal(countWhere(s, 'Contact', 'LastName', 'Twin'), before);
});

test('upsert: a match value that tries to inject SOQL is matched literally', async (t) => {
  const s = await startStack(t);
  s.sf.org.insert('Contact', [{ LastName: 'Victim', Email: 'victim@example.com' }]);
  const attack = "x' OR LastName != '";
  const answer = await upsert(s, 'Contact', { LastName: attack, FirstName: 'Mallory' }, 'LastName');
  assert.equal(answer.status, 200, answer.text);
  // Without escaping the lookup would match every contact (ambiguous, or an update of the victim).
  assert.equal(answer.headers.get('x-crm-proxy-upsert-action'), 'insert');
  assert.equal(answer.body.data[0]?.success, true);
  assert.equal(stored(s, answer.body.data[0]?.id)?.['LastName'], attack);
  const backslash = "a\\' OR Name != '";
  const again = await upsert(s, 'Contact', { LastName: backslash }, 'LastName');
  assert.equal(again.headers.get('x-crm-proxy-upsert-action'), 'insert');
  assert.equal(stored(s, again.body.data[0]?.id)?.['LastName'], backslash);
  // The escaped value matches itself exactly: sending it again updates the record it created.
  const repeat = await upsert(s, 'Contact', { LastName: attack, FirstName: 'Eve' }, 'LastName');
  assert.equal(repeat.headers.get('x-crm-proxy-upsert-action'), 'update', repeat.text);
  assert.equal(repeat.body.data[0]?.id, answer.body.data[0]?.id);
  assert.equal(stored(s, answer.body.data[0]?.id)?.['FirstName'], 'Eve');
});

test('upsert: no value for the match key, or an unknown match key, is a 400 and nothing is sent', async (t) => {
  const s = await startStack(t);
  const missing = await s.api<ErrorBody>('/v1/object/upsert/Contact', {
    body: { data: [{ LastName: 'No email' }], match_key: 'Email' },
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'missing_match_value');
  const unknown = await s.api<ErrorBody>('/v1/object/upsert/Contact', {
    body: { data: [{ LastName: 'x', Emial: 'a' }], match_key: 'Emial' },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.code, 'unknown_field');
  assert.match(unknown.body.error.message, /did you mean "Email"/);
  const two = await s.api<ErrorBody>('/v1/object/upsert/Contact', {
    body: { data: [{ LastName: 'a' }, { LastName: 'b' }], match_key: 'LastName' },
  });
  assert.equal(two.status, 400);
});
