import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Org } from '../../../sandbox/salesforce/org/index.ts';

const org = new Org();
const codesOf = (r: { errors: Array<{ statusCode: string }> }) => r.errors.map((e) => e.statusCode);

test('seed: admin and standard profiles with their profile-owned permission sets, a few hundred records', () => {
  const run = org.query(
    "SELECT Id, ProfileId, Profile.Name, IsOwnedByProfile FROM PermissionSet WHERE IsOwnedByProfile = true AND Profile.Name IN ('System Administrator','Standard User') ORDER BY Profile.Name",
  );
  assert.deepEqual(
    run.records.map((r) => (r.Profile as { Name: string }).Name),
    ['Standard User', 'System Administrator'],
  );
  for (const r of run.records) assert.equal(String(r.Id).slice(0, 3), '0PS');
  const admin = org.get(org.adminUserId);
  assert.equal(admin?.object, 'User');
  let total = 0;
  for (const name of ['Account', 'Contact', 'Lead', 'Opportunity', 'Case', 'Invoice__c']) {
    total += org.query(`SELECT COUNT() FROM ${name}`).totalSize;
  }
  assert.ok(total >= 300, `seeded ${total}`);
  // Deterministic: a second org has the same ids and values.
  const other = new Org();
  assert.deepEqual(
    other.query('SELECT Id, Name, External_Id__c FROM Account ORDER BY Name LIMIT 5').records,
    org.query('SELECT Id, Name, External_Id__c FROM Account ORDER BY Name LIMIT 5').records,
  );
});

test('insert: ids with key prefix, audit fields, defaults, derived Name; field names case-insensitive', () => {
  const [res] = org.insert('Contact', [{ lastname: 'Ng', FIRSTNAME: 'Ada', email: 'ada@example.com' }]);
  assert.equal(res?.success, true);
  const rec = org.get(res?.id ?? '')?.record;
  assert.ok(rec);
  assert.equal(String(rec.Id).slice(0, 3), '003');
  assert.equal(rec.Name, 'Ada Ng');
  assert.equal(rec.LastName, 'Ng');
  assert.equal(rec.IsDeleted, false);
  assert.match(String(rec.CreatedDate), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
  assert.equal(rec.CreatedById, org.adminUserId);
  assert.equal(rec.OwnerId, org.adminUserId);
  const [lead] = org.insert('Lead', [{ LastName: 'L', Company: 'C' }]);
  assert.equal(org.get(lead?.id ?? '')?.record.Status, 'Open - Not Contacted', 'default picklist value');
});

test('per-record errors carry Salesforce status codes and messages', () => {
  const results = org.insert('Account', [
    { Name: null },
    { Name: 'x', Foo__c: 1 },
    { Name: 'a'.repeat(256) },
    { Name: 'x', NumberOfEmployees: 'many' },
    { Name: 'x', AnnualRevenue: true },
    { Name: 'x', ParentId: 'not-an-id' },
    { Name: 'x', ParentId: '001000000000000' },
    { Name: 'x', ParentId: org.adminUserId },
    { Name: 'x', CreatedDate: '2024-01-01T00:00:00Z' },
    { Name: 'x', External_Id__c: 'ACC-0001' },
    { Name: 'x', Id: '001000000000000' },
  ]);
  assert.deepEqual(results.map(codesOf), [
    ['REQUIRED_FIELD_MISSING'],
    ['INVALID_FIELD'],
    ['STRING_TOO_LONG'],
    ['INVALID_TYPE_ON_FIELD_IN_RECORD'],
    ['INVALID_TYPE_ON_FIELD_IN_RECORD'],
    ['MALFORMED_ID'],
    ['INVALID_CROSS_REFERENCE_KEY'],
    ['FIELD_INTEGRITY_EXCEPTION'],
    ['INVALID_FIELD_FOR_INSERT_UPDATE'],
    ['DUPLICATE_VALUE'],
    ['INVALID_FIELD_FOR_INSERT_UPDATE'],
  ]);
  for (const r of results) assert.equal(r.id, undefined, 'failed rows carry no id');
  assert.deepEqual(results[0]?.errors[0], {
    statusCode: 'REQUIRED_FIELD_MISSING',
    message: 'Required fields are missing: [Name]',
    fields: ['Name'],
  });
  assert.equal(results[1]?.errors[0]?.message, "No such column 'Foo__c' on sobject of type Account");
  assert.match(
    results[2]?.errors[0]?.message ?? '',
    /^Account Name: data value too large: a+ \(max length=255\)$/,
  );
  assert.match(
    results[9]?.errors[0]?.message ?? '',
    /^duplicate value found: External_Id__c duplicates value on record with id: 001/,
  );
  const [pick, email, multi] = [
    ...org.insert('Invoice__c', [{ Name: 'i', Status__c: 'Lost' }]),
    ...org.insert('Contact', [{ LastName: 'e', Email: 'not-an-email' }]),
    ...org.insert('Invoice__c', [{ Name: 'i', Tags__c: 'Priority;Nope' }]),
  ];
  assert.deepEqual(pick?.errors[0], {
    statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
    message: 'Status: bad value for restricted picklist field: Lost',
    fields: ['Status__c'],
  });
  assert.deepEqual(codesOf(email ?? { errors: [] }), ['INVALID_EMAIL_ADDRESS']);
  assert.deepEqual(codesOf(multi ?? { errors: [] }), ['INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST']);
  // A blank restricted picklist (an empty Bulk CSV cell on insert, or "" over REST) is simply unset.
  const [blankCsv, blankJson] = [
    ...org.insert('Invoice__c', [{ Name: 'b', Status__c: '' }], { csv: true }),
    ...org.insert('Invoice__c', [{ Name: 'b', Status__c: '' }]),
  ];
  assert.equal(blankCsv?.success, true, JSON.stringify(blankCsv));
  assert.equal(blankJson?.success, true, JSON.stringify(blankJson));
  assert.equal(org.get(blankCsv!.id!)?.record['Status__c'] ?? null, null);
});

test('type coercion per field type', () => {
  const [res] = org.insert('Account', [
    { Name: 'Types', NumberOfEmployees: '42', AnnualRevenue: 1234.567, Website: 'https://x.example' },
  ]);
  const rec = org.get(res?.id ?? '')?.record;
  assert.equal(rec?.NumberOfEmployees, 42);
  assert.equal(rec?.AnnualRevenue, 1235, 'rounded to the scale of the real describe (currency 18,0)');
  const [inv] = org.insert('Invoice__c', [
    {
      Name: 'T',
      Due_Date__c: '2024-02-29',
      Paid__c: 'true',
      Tags__c: 'Priority;Recurring',
      Amount__c: '10.505',
    },
  ]);
  const i = org.get(inv?.id ?? '')?.record;
  assert.deepEqual(
    [i?.Due_Date__c, i?.Paid__c, i?.Tags__c, i?.Amount__c],
    ['2024-02-29', true, 'Priority;Recurring', 10.51],
  );
  const [bad] = org.insert('Invoice__c', [{ Name: 'T', Due_Date__c: '2023-02-29' }]);
  assert.deepEqual(codesOf(bad ?? { errors: [] }), ['INVALID_TYPE_ON_FIELD_IN_RECORD']);
  const [dt] = org.insert('Case', [{ Subject: 's' }]);
  assert.equal(org.get(dt?.id ?? '')?.record.Priority, 'Medium');
});

test('parent references by external id, as Salesforce resolves them', () => {
  const parent = org.query("SELECT Id FROM Account WHERE External_Id__c = 'ACC-0002'").records[0];
  const [ok, missing] = org.insert('Contact', [
    { LastName: 'Child', Account: { External_Id__c: 'acc-0002' } },
    { LastName: 'Orphan', Account: { attributes: { type: 'Account' }, External_Id__c: 'NOPE' } },
  ]);
  assert.equal(org.get(ok?.id ?? '')?.record.AccountId, parent?.Id);
  assert.deepEqual(missing?.errors[0], {
    statusCode: 'INVALID_FIELD',
    message: 'Foreign key external ID: NOPE not found for field External_Id__c in entity Account',
    fields: [],
  });
  // Bulk CSV style: a dotted column.
  const [csv] = org.insert('Contact', [{ LastName: 'Csv', 'Account.External_Id__c': 'ACC-0002' }], {
    csv: true,
  });
  assert.equal(org.get(csv?.id ?? '')?.record.AccountId, parent?.Id);
});

test('allOrNone rolls everything back and reports the rollback on the valid records', () => {
  const before = org.query('SELECT COUNT() FROM Contact').totalSize;
  const results = org.insert(
    'Contact',
    [{ LastName: 'A' }, { FirstName: 'no last name' }, { LastName: 'C' }],
    {
      allOrNone: true,
    },
  );
  assert.deepEqual(results.map(codesOf), [
    ['ALL_OR_NONE_OPERATION_ROLLED_BACK'],
    ['REQUIRED_FIELD_MISSING'],
    ['ALL_OR_NONE_OPERATION_ROLLED_BACK'],
  ]);
  assert.equal(
    results[0]?.errors[0]?.message,
    'Record rolled back because not all records were valid and the request was using AllOrNone header',
  );
  assert.equal(org.query('SELECT COUNT() FROM Contact').totalSize, before);
  // Updates are undone too.
  const [acc] = org.insert('Account', [{ Name: 'Before' }]);
  org.update(
    'Account',
    [
      { Id: acc?.id, Name: 'After' },
      { Id: acc?.id, Name: null },
    ],
    { allOrNone: true },
  );
  assert.equal(org.get(acc?.id ?? '')?.record.Name, 'Before');
});

test('update, upsert by external id, delete to the recycle bin, undelete', () => {
  const [a] = org.insert('Account', [{ Name: 'Up', External_Id__c: 'UP-1' }]);
  const id = a?.id ?? '';
  const [u] = org.update('Account', [{ id: id.slice(0, 15), Phone: '123' }]);
  assert.equal(u?.id, id);
  assert.equal(org.get(id)?.record.Phone, '123');
  const ups = org.upsert('Account', 'External_Id__c', [
    { External_Id__c: 'up-1', Name: 'Up again' },
    { External_Id__c: 'UP-2', Name: 'New' },
    { Name: 'No key' },
  ]);
  assert.deepEqual(
    ups.map((r) => [r.success, r.created]),
    [
      [true, false],
      [true, true],
      [false, false],
    ],
  );
  assert.equal(ups[0]?.id, id);
  assert.equal(org.get(id)?.record.Name, 'Up again');
  const dup = org.upsert('Account', 'External_Id__c', [
    { External_Id__c: 'D', Name: 'a' },
    { External_Id__c: 'd', Name: 'b' },
  ]);
  assert.deepEqual(dup.map(codesOf), [['DUPLICATE_EXTERNAL_ID'], ['DUPLICATE_EXTERNAL_ID']]);

  const [d, again, malformed, unknown] = org.delete([id, id, 'xyz', '001000000000000']);
  assert.equal(d?.success, true);
  assert.deepEqual(codesOf(again ?? { errors: [] }), ['ENTITY_IS_DELETED']);
  assert.deepEqual(codesOf(malformed ?? { errors: [] }), ['MALFORMED_ID']);
  assert.deepEqual(codesOf(unknown ?? { errors: [] }), ['INVALID_CROSS_REFERENCE_KEY']);
  assert.deepEqual(codesOf(org.update('Account', [{ Id: id, Name: 'x' }])[0] ?? { errors: [] }), [
    'ENTITY_IS_DELETED',
  ]);
  assert.equal(org.query(`SELECT COUNT() FROM Account WHERE Id = '${id}'`).totalSize, 0);
  const all = org.query(`SELECT Id, IsDeleted FROM Account WHERE Id = '${id}'`, { includeDeleted: true });
  assert.equal(all.records[0]?.IsDeleted, true);
  // The external id is free again while the record is in the recycle bin.
  assert.equal(org.insert('Account', [{ Name: 'Reuse', External_Id__c: 'UP-1' }])[0]?.success, true);
  assert.deepEqual(codesOf(org.undelete([id])[0] ?? { errors: [] }), ['DUPLICATE_VALUE']);
});

test('custom fields and objects added at run time can be written, queried and described', () => {
  const f = org.addCustomField('Account', {
    name: 'Tier',
    type: 'picklist',
    label: 'Tier',
    restrictedPicklist: true,
    picklistValues: [{ active: true, defaultValue: false, label: 'Gold', validFor: null, value: 'Gold' }],
  });
  assert.equal(f.name, 'Tier__c');
  assert.equal(f.custom, true);
  const [ok, bad] = org.insert('Account', [
    { Name: 'T', Tier__c: 'Gold' },
    { Name: 'T', Tier__c: 'Tin' },
  ]);
  assert.equal(ok?.success, true);
  assert.deepEqual(codesOf(bad ?? { errors: [] }), ['INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST']);
  assert.equal(org.query(`SELECT Tier__c FROM Account WHERE Id = '${ok?.id}'`).records[0]?.Tier__c, 'Gold');
  assert.ok(org.describe('Account', '62.0')?.fields.some((x) => x.name === 'Tier__c'));
  assert.throws(() => org.addCustomField('Account', { name: 'Tier__c', type: 'string' }), /already a field/);

  const meta = org.addCustomObject({
    name: 'Shipment',
    fields: [{ name: 'Carrier__c', type: 'string', length: 40 }],
  });
  assert.equal(meta.name, 'Shipment__c');
  assert.equal(meta.keyPrefix.length, 3);
  const [s] = org.insert('Shipment__c', [{ Name: 'S-1', Carrier__c: 'DHL' }]);
  assert.equal(s?.id?.slice(0, 3), meta.keyPrefix);
  assert.equal(org.query('SELECT Name, Carrier__c FROM Shipment__c').records[0]?.Carrier__c, 'DHL');
  const ext = org.addCustomField('Shipment__c', {
    name: 'Ref__c',
    type: 'string',
    length: 20,
    externalId: true,
    unique: true,
  });
  assert.ok(ext.idLookup);
  assert.equal(org.upsert('Shipment__c', 'Ref__c', [{ Ref__c: 'R1', Name: 'S-2' }])[0]?.created, true);
  org.reset();
  assert.equal(org.object('Shipment__c'), undefined, 'reset drops run-time metadata');
  assert.equal(org.object('Account')?.field('Tier__c'), undefined);
});

test('validators registered by other parts of the sandbox run on writes', () => {
  const fresh = new Org();
  fresh.addValidator('Lead', (rec) =>
    rec.Company === 'Blocked'
      ? { statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'blocked', fields: [] }
      : null,
  );
  const [a, b] = fresh.insert('Lead', [
    { LastName: 'a', Company: 'Blocked' },
    { LastName: 'b', Company: 'Fine' },
  ]);
  assert.deepEqual(codesOf(a ?? { errors: [] }), ['FIELD_CUSTOM_VALIDATION_EXCEPTION']);
  assert.equal(b?.success, true);
});

test('the kernel takes 10 000 CSV rows in one call', () => {
  const fresh = new Org();
  const rows = Array.from({ length: 10_000 }, (_, i) => ({
    Name: `Bulk ${i}`,
    External_Id__c: `B-${i}`,
    NumberOfEmployees: String(i),
  }));
  const results = fresh.insert('Account', rows, { csv: true });
  assert.equal(results.filter((r) => r.success).length, 10_000);
  assert.equal(fresh.query("SELECT COUNT() FROM Account WHERE Name LIKE 'Bulk %'").totalSize, 10_000);
});
