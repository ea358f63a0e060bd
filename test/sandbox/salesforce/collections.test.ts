import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { codes, useSandbox, V } from './rest-helpers.ts';

const { sf, call, reset, fault } = useSandbox();
beforeEach(reset);
const C = `${V}/composite/sobjects`;

type Result = {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
  created?: boolean;
};

test('create: one SaveResult per record in order; failed rows have no id key; mixed types', async () => {
  const res = await call('POST', C, {
    allOrNone: false,
    records: [
      { attributes: { type: 'Account' }, Name: 'Coll A' },
      { attributes: { type: 'Contact' }, FirstName: 'No last name' },
      { attributes: { type: 'Contact' }, LastName: 'Ng' },
    ],
  });
  assert.equal(res.status, 200);
  const out = res.body as Result[];
  assert.equal(out.length, 3);
  assert.deepEqual(Object.keys(out[0] ?? {}), ['id', 'success', 'errors']);
  assert.equal(out[0]?.id?.slice(0, 3), '001');
  assert.deepEqual(out[1], {
    success: false,
    errors: [
      {
        statusCode: 'REQUIRED_FIELD_MISSING',
        message: 'Required fields are missing: [LastName]',
        fields: ['LastName'],
      },
    ],
  });
  assert.ok(!('id' in (out[1] ?? {})));
  assert.equal(out[2]?.id?.slice(0, 3), '003');
});

test('allOrNone: everything rolled back, the valid rows report ALL_OR_NONE_OPERATION_ROLLED_BACK', async () => {
  const res = await call('POST', C, {
    allOrNone: true,
    records: [
      { attributes: { type: 'Lead' }, LastName: 'Rolled', Company: 'Back' },
      { attributes: { type: 'Lead' }, LastName: 'Missing company' },
    ],
  });
  const out = res.body as Result[];
  assert.deepEqual(out[0], {
    success: false,
    errors: [
      {
        statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
        message:
          'Record rolled back because not all records were valid and the request was using AllOrNone header',
        fields: [],
      },
    ],
  });
  assert.deepEqual(codes(out[1]?.errors), ['REQUIRED_FIELD_MISSING']);
  const q = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent("SELECT COUNT() FROM Lead WHERE LastName = 'Rolled'")}`,
  );
  assert.equal((q.body as { totalSize: number }).totalSize, 0);
});

test('update: failed rows come back without an id (as recorded from a real org)', async () => {
  const created = (await call('POST', C, { records: [{ attributes: { type: 'Contact' }, LastName: 'U' }] }))
    .body as Result[];
  const id = created[0]?.id;
  const res = await call('PATCH', C, {
    allOrNone: false,
    records: [
      { attributes: { type: 'Contact' }, id, Email: 'ok@example.com' },
      { attributes: { type: 'Contact' }, id, Email: 'badone' },
      { attributes: { type: 'Contact' }, id: '003000000000000AAA', LastName: 'x' },
    ],
  });
  const out = res.body as Result[];
  assert.deepEqual(out[0], { id, success: true, errors: [] });
  assert.deepEqual(out[1], {
    success: false,
    errors: [
      {
        statusCode: 'INVALID_EMAIL_ADDRESS',
        message: 'Email: invalid email address: badone',
        fields: ['Email'],
      },
    ],
  });
  assert.deepEqual(codes(out[2]?.errors), ['INVALID_CROSS_REFERENCE_KEY']);
});

test('delete with ids and allOrNone; retrieve by GET and POST with null slots', async () => {
  const created = (
    await call('POST', C, {
      records: [
        { attributes: { type: 'Account' }, Name: 'D1' },
        { attributes: { type: 'Account' }, Name: 'D2' },
      ],
    })
  ).body as Result[];
  const [a, b] = created.map((r) => r.id as string);
  const got = await call(
    'GET',
    `${C}/Account?ids=${a},${b?.slice(0, 15)},001000000000000AAA&fields=id,name,Owner.Name`,
  );
  const recs = got.body as Array<Record<string, unknown> | null>;
  assert.equal(recs.length, 3);
  assert.deepEqual(Object.keys(recs[0] ?? {}), ['attributes', 'Id', 'Name', 'Owner']);
  assert.equal(recs[1]?.Name, 'D2');
  assert.equal(recs[2], null);
  const posted = await call('POST', `${C}/Account`, { ids: [b, 'bad'], fields: ['Name'] });
  assert.deepEqual(
    (posted.body as Array<Record<string, unknown> | null>).map((r) => r?.Name ?? null),
    ['D2', null],
  );
  const badField = await call('GET', `${C}/Account?ids=${a}&fields=Nope`);
  assert.equal(badField.status, 400);
  assert.deepEqual(codes(badField.body), ['INVALID_FIELD']);

  const aon = await call('DELETE', `${C}?ids=${a},001000000000000AAA&allOrNone=true`);
  assert.deepEqual(
    (aon.body as Result[]).map((r) => codes(r.errors)),
    [['ALL_OR_NONE_OPERATION_ROLLED_BACK'], ['INVALID_CROSS_REFERENCE_KEY']],
  );
  const del = await call('DELETE', `${C}?ids=${a},${b},xyz`);
  const out = del.body as Result[];
  assert.deepEqual(out[0], { id: a, success: true, errors: [] });
  assert.deepEqual(out[2], {
    success: false,
    errors: [{ statusCode: 'MALFORMED_ID', message: 'malformed id xyz', fields: [] }],
  });
  const after = await call('POST', `${C}/Account`, { ids: [a, b], fields: ['Name'] });
  assert.deepEqual(after.body, [null, null], 'deleted records retrieve as null');
});

test('upsert collection by external id: created flags in order, errors per record', async () => {
  const res = await call('PATCH', `${C}/Account/External_Id__c`, {
    allOrNone: false,
    records: [
      { attributes: { type: 'Account' }, External_Id__c: 'ACC-0001', Name: 'Renamed' },
      { attributes: { type: 'Account' }, External_Id__c: 'NEW-1', Name: 'Brand new' },
      { attributes: { type: 'Account' }, External_Id__c: 'NEW-2', Name: null },
    ],
  });
  const out = res.body as Result[];
  assert.deepEqual(
    out.map((r) => [r.success, r.created]),
    [
      [true, false],
      [true, true],
      [false, false],
    ],
  );
  assert.deepEqual(codes(out[2]?.errors), ['REQUIRED_FIELD_MISSING']);
  const bad = await call('PATCH', `${C}/Account/Name__x`, {
    records: [{ attributes: { type: 'Account' }, Name__x: '1' }],
  });
  assert.equal(bad.status, 404);
});

test('limits: 200 records per write, 2 000 ids per retrieve', async () => {
  const records = Array.from({ length: 201 }, (_, i) => ({ attributes: { type: 'Account' }, Name: `L${i}` }));
  const tooMany = await call('POST', C, { records });
  assert.equal(tooMany.status, 400);
  assert.deepEqual(codes(tooMany.body), ['EXCEEDED_ID_LIMIT']);
  const ok = await call('POST', C, { records: records.slice(0, 200) });
  assert.equal((ok.body as Result[]).filter((r) => r.success).length, 200);
  const ids = Array.from({ length: 2001 }, () => '001000000000000AAA');
  assert.equal((await call('POST', `${C}/Account`, { ids, fields: ['Id'] })).status, 400);
  const fine = await call('POST', `${C}/Account`, { ids: ids.slice(0, 2000), fields: ['Id'] });
  assert.equal((fine.body as unknown[]).length, 2000);
  const delIds = Array.from({ length: 201 }, () => '001000000000000AAA').join(',');
  assert.equal((await call('DELETE', `${C}?ids=${delIds}`)).status, 400);
});

test('lock fault: every record fails with UNABLE_TO_LOCK_ROW and nothing is written', async () => {
  const calls = sf().accounting.count('collections.create');
  await fault('lock', 'collections.create');
  const res = await call('POST', C, {
    records: [
      { attributes: { type: 'Account' }, Name: 'Lock 1' },
      { attributes: { type: 'Account' }, Name: 'Lock 2' },
    ],
  });
  assert.equal(res.status, 200);
  for (const r of res.body as Result[]) {
    assert.equal(r.success, false);
    assert.deepEqual(codes(r.errors), ['UNABLE_TO_LOCK_ROW']);
  }
  const q = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent("SELECT COUNT() FROM Account WHERE Name LIKE 'Lock %'")}`,
  );
  assert.equal((q.body as { totalSize: number }).totalSize, 0);
  assert.equal(sf().accounting.count('collections.create'), calls + 1);
});

test('upsert collection with allOrNone rolled back: created tells the operation each row would have been', async () => {
  // jsforce's own suite (connection-crud, "upsert 5 records ... allOrNone=true and one invalid
  // record"): every row fails, and rows whose key matched no record answer created: true, the
  // failing one included; a row that matched one answers created: false.
  const res = await call('PATCH', `${C}/Account/External_Id__c`, {
    allOrNone: true,
    records: [
      { attributes: { type: 'Account' }, External_Id__c: 'AON-NEW-1', Name: 'Would be new' },
      { attributes: { type: 'Account' }, External_Id__c: 'ACC-0001', Name: 'Would be renamed' },
      {
        attributes: { type: 'Account' },
        External_Id__c: 'AON-NEW-2',
        Name: 'Bad owner',
        OwnerId: 'INVALID_OWNER',
      },
    ],
  });
  assert.equal(res.status, 200);
  const out = res.body as Result[];
  assert.deepEqual(
    out.map((r) => [r.success, r.created, codes(r.errors)[0]]),
    [
      [false, true, 'ALL_OR_NONE_OPERATION_ROLLED_BACK'],
      [false, false, 'ALL_OR_NONE_OPERATION_ROLLED_BACK'],
      [false, true, 'MALFORMED_ID'],
    ],
  );
  const q = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent("SELECT External_Id__c, Name FROM Account WHERE External_Id__c IN ('AON-NEW-1', 'AON-NEW-2', 'ACC-0001')")}`,
  );
  const rows = (q.body as { records: Array<{ External_Id__c: string; Name: string }> }).records;
  assert.deepEqual(
    rows.map((r) => r.External_Id__c),
    ['ACC-0001'],
    'nothing was created',
  );
  assert.notEqual(rows[0]?.Name, 'Would be renamed', 'nothing was updated');
});
