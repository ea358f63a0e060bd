import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, startHubSpot } from './objects-helpers.ts';

const TOO_MANY =
  'The maximum number of inputs supported in a batch is 100. Please reduce the number of items and try again';

test('batch/read: 100 inputs are fine, 101 get the captured 400', async (t) => {
  const hs = await startHubSpot(t);
  const ids = hs.portal.records.list('0-1').map((r) => r.id);
  const hundred = Array.from({ length: 100 }, (_, i) => ({ id: ids[i % ids.length]! }));
  const ok = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    inputs: hundred,
  });
  assert.equal(ok.status, 200);
  // duplicate input ids give one result each
  assert.equal(ok.body.results.length, Math.min(100, ids.length));
  const over = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    inputs: [...hundred, { id: ids[0]! }],
  });
  assert.equal(over.status, 400);
  assert.equal(over.body.message, TOO_MANY);
  assert.equal(over.body.category, 'VALIDATION_ERROR');
  for (const op of ['create', 'update', 'upsert', 'archive']) {
    const r = await call(hs, 'POST', `/crm/v3/objects/contacts/batch/${op}`, {
      inputs: Array.from({ length: 101 }, (_, i) => ({ id: String(i), idProperty: 'email', properties: {} })),
    });
    assert.equal(r.status, 400, op);
    assert.equal(r.body.message, TOO_MANY, op);
  }
});

test('batch/read with propertiesWithHistory is capped at 50 inputs', async (t) => {
  const hs = await startHubSpot(t);
  const id = hs.portal.records.list('0-1')[0]!.id;
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    propertiesWithHistory: ['email'],
    inputs: Array.from({ length: 51 }, () => ({ id })),
  });
  assert.equal(r.status, 400);
  assert.match(r.body.message, /property histories is 50/);
});

test('batch/read with missing ids is a 207 with one OBJECT_NOT_FOUND entry listing the input values', async (t) => {
  const hs = await startHubSpot(t);
  const [a, b] = hs.portal.records.list('0-1');
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email', 'nonexistent_prop'],
    propertiesWithHistory: [],
    inputs: [{ id: a!.id }, { id: '99999999' }, { id: b!.id }, { id: '88888888' }],
  });
  assert.equal(r.status, 207);
  assert.equal(r.body.status, 'COMPLETE');
  assert.equal(r.body.numErrors, 1);
  assert.deepEqual(r.body.errors, [
    {
      status: 'error',
      category: 'OBJECT_NOT_FOUND',
      message:
        'Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.',
      context: { ids: ['99999999', '88888888'] },
    },
  ]);
  assert.deepEqual(
    r.body.results.map((x: { id: string }) => x.id),
    [a!.id, b!.id],
  );
  // identity trio plus the asked, existing property
  assert.deepEqual(Object.keys(r.body.results[0].properties), [
    'createdate',
    'email',
    'hs_object_id',
    'lastmodifieddate',
  ]);
  assert.match(r.body.startedAt, /Z$/);
  assert.match(r.body.completedAt, /Z$/);
});

test('batch/read by idProperty matches emails and reports unknown emails', async (t) => {
  const hs = await startHubSpot(t);
  const c = hs.portal.records.list('0-1')[3]!;
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    idProperty: 'email',
    inputs: [{ id: c.properties['email']! }, { id: 'nobody@example.com' }],
  });
  assert.equal(r.status, 207);
  assert.equal(r.body.results[0].id, c.id);
  assert.deepEqual(r.body.errors[0].context.ids, ['nobody@example.com']);
  const notUnique = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    idProperty: 'firstname',
    inputs: [{ id: 'Ada' }],
  });
  assert.equal(notUnique.status, 400);
});

test('batch create answers 201; batch update 200 with a 207 for missing ids; archive 204 with no body', async (t) => {
  const hs = await startHubSpot(t);
  const created = await call(hs, 'POST', '/crm/v3/objects/companies/batch/create', {
    inputs: [
      { properties: { name: 'bossa', domain: 'bossa.example.org' } },
      { properties: { name: 'samba', domain: 'samba.example.org' } },
    ],
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.status, 'COMPLETE');
  assert.equal(created.body.results.length, 2);
  // company create derives website from domain (captured)
  assert.equal(created.body.results[0].properties.website, 'bossa.example.org');
  assert.deepEqual(Object.keys(created.body.results[0].properties), [
    'createdate',
    'domain',
    'hs_lastmodifieddate',
    'hs_object_id',
    'name',
    'website',
  ]);
  const [x, y] = created.body.results.map((r: { id: string }) => r.id);
  const updated = await call(hs, 'POST', '/crm/v3/objects/companies/batch/update', {
    inputs: [{ id: x, properties: { city: 'Rio' } }],
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.results[0].properties.city, 'Rio');
  assert.ok('createdate' in updated.body.results[0].properties);
  const partial = await call(hs, 'POST', '/crm/v3/objects/companies/batch/update', {
    inputs: [
      { id: y, properties: { city: 'Recife' } },
      { id: '77777777', properties: { city: 'Nowhere' } },
    ],
  });
  assert.equal(partial.status, 207);
  assert.equal(partial.body.results.length, 1);
  assert.equal(partial.body.errors[0].category, 'OBJECT_NOT_FOUND');
  assert.deepEqual(partial.body.errors[0].context.ids, ['77777777']);
  const archived = await call(hs, 'POST', '/crm/v3/objects/companies/batch/archive', {
    inputs: [{ id: x }, { id: y }, { id: '12345678' }],
  });
  assert.equal(archived.status, 204);
  assert.equal(archived.body, undefined);
  assert.equal(archived.headers.get('content-type'), null);
  assert.equal(hs.portal.records.get('0-2', x), undefined);
});

test('batch create: a bad input fails the whole call, unless inputs carry objectWriteTraceId (207)', async (t) => {
  const hs = await startHubSpot(t);
  const before = hs.portal.records.list('0-1').length;
  const whole = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
    inputs: [
      { properties: { email: 'ok1@example.com' } },
      { properties: { email: 'bad@example.com', nope: 'x' } },
    ],
  });
  assert.equal(whole.status, 400);
  assert.equal(whole.body.errors[0].code, 'PROPERTY_DOESNT_EXIST');
  assert.equal(hs.portal.records.list('0-1').length, before);
  const multi = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
    inputs: [
      { properties: { email: 'ok1@example.com' }, objectWriteTraceId: 't1' },
      { properties: { email: 'bad@example.com', nope: 'x' }, objectWriteTraceId: 't2' },
      { properties: { email: 'OK1@example.com' }, objectWriteTraceId: 't3' },
    ],
  });
  assert.equal(multi.status, 207);
  assert.equal(multi.body.results.length, 1);
  // successful inputs echo their trace id
  assert.equal(multi.body.results[0].objectWriteTraceId, 't1');
  assert.equal(multi.body.numErrors, 2);
  assert.deepEqual(
    multi.body.errors.map(
      (e: { context: { objectWriteTraceId: string[] } }) => e.context.objectWriteTraceId[0],
    ),
    ['t2', 't3'],
  );
  assert.equal(multi.body.errors[0].category, 'VALIDATION_ERROR');
  assert.equal(multi.body.errors[1].category, 'CONFLICT');
});

test('batch upsert by a unique property creates and updates, with the new flag', async (t) => {
  const hs = await startHubSpot(t);
  const existing = hs.portal.records.list('0-1')[5]!;
  const r = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/upsert', {
    inputs: [
      { id: existing.properties['email']!, idProperty: 'email', properties: { firstname: 'Changed' } },
      { id: 'brand.new@example.com', idProperty: 'email', properties: { firstname: 'Brand' } },
    ],
  });
  assert.equal(r.status, 200);
  const byNew = new Map(r.body.results.map((x: { new: boolean; id: string }) => [x.new, x]));
  assert.equal((byNew.get(false) as { id: string }).id, existing.id);
  const created = byNew.get(true) as { properties: Record<string, string> };
  assert.equal(created.properties.email, 'brand.new@example.com');
  assert.equal(hs.portal.records.get('0-1', existing.id)?.properties['firstname'], 'Changed');
  const custom = await call(hs, 'POST', '/crm/v3/objects/2-3604285/batch/upsert', {
    inputs: [{ id: 'VIN-UPSERT', idProperty: 'vin', properties: { make: 'Saab' } }],
  });
  assert.equal(custom.status, 200);
  assert.equal(custom.body.results[0].new, true);
  assert.equal(custom.body.results[0].properties.vin, 'VIN-UPSERT');
  const notUnique = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/upsert', {
    inputs: [{ id: 'Ada', idProperty: 'firstname', properties: {} }],
  });
  assert.equal(notUnique.status, 400);
});

test('batch calls are counted under their kinds', async (t) => {
  const hs = await startHubSpot(t);
  const id = hs.portal.records.list('0-1')[0]!.id;
  await call(hs, 'POST', '/crm/v3/objects/contacts/batch/read', { properties: [], inputs: [{ id }] });
  await call(hs, 'POST', '/crm/v3/objects/contacts/batch/archive', { inputs: [{ id }] });
  assert.equal(hs.accounting.count('objects.batch.read'), 1);
  assert.equal(hs.accounting.count('objects.batch.archive'), 1);
  assert.equal(hs.accounting.count('objects.batch'), 2);
});

test('batchResultOrder shuffled: a batch create answers in a scrambled order, every trace id once, the same on every run', async (t) => {
  const inputs = Array.from({ length: 100 }, (_, i) => ({
    properties: { email: `shuffle${i}@example.com` },
    objectWriteTraceId: String(i),
  }));
  const orders: string[][] = [];
  for (const run of [0, 1]) {
    const hs = await startHubSpot(t, { batchResultOrder: 'shuffled' });
    const r = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', { inputs });
    assert.equal(r.status, 201, `run ${run}`);
    orders.push((r.body.results as Array<{ objectWriteTraceId: string }>).map((x) => x.objectWriteTraceId));
  }
  const [first, second] = orders;
  assert.deepEqual(
    [...(first ?? [])].sort((a, b) => Number(a) - Number(b)),
    inputs.map((_, i) => String(i)),
  );
  assert.notDeepEqual(
    first,
    inputs.map((_, i) => String(i)),
    'not in input order',
  );
  assert.deepEqual(first, second, 'seeded');
});
