// Mirrors jsforce's integration file test/connection-crud.test.ts (9 tests) against the sandbox:
// single-record and collection CRUD through `sobject()`, and upsert on an external id.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Record as SfRecord } from 'jsforce';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf } = useSandbox();
const conn = () => connectTo(sf());
const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

describe('one record', () => {
  let id = '';
  test('create a Account and receive its id', async () => {
    const res = await conn().sobject('Account').create({ Name: 'Harbour Tiles' });
    assert.equal(res.success, true);
    assert.equal(typeof res.id, 'string');
    id = res.id as string;
  });

  test('retrieve it as a record with attributes', async () => {
    const rec = await conn().sobject('Account').retrieve(id);
    assert.equal(rec.Id, id);
    assert.ok(isPlainObject(rec.attributes));
  });

  test('update it through record() and read the new name back', async () => {
    const c = conn();
    const res = await c.sobject('Account').record(id).update({ Name: 'Harbour Tiles Ltd' });
    assert.equal(res.success, true);
    const rec = await c.sobject('Account').record(id).retrieve();
    assert.equal(rec.Name, 'Harbour Tiles Ltd');
    assert.ok(isPlainObject(rec.attributes));
  });

  test('update and retrieve with extra request headers (Sforce-Auto-Assign)', async () => {
    const c = conn();
    const options = { headers: { 'Sforce-Auto-Assign': 'FALSE' } };
    const res = await c.sobject('Account').record(id).update({ Name: 'Harbour Tiles Group' }, options);
    assert.equal(res.success, true);
    const rec = await c.sobject('Account').record(id).retrieve(options);
    assert.equal(rec.Name, 'Harbour Tiles Group');
    assert.ok(isPlainObject(rec.attributes));
  });
});

describe('several records', () => {
  let ids: string[] = [];
  let recs: SfRecord[] = [];
  test('create two accounts in one call', async () => {
    const res = await conn()
      .sobject('Account')
      .create([{ Name: 'Birch Lane 1' }, { Name: 'Birch Lane 2' }]);
    assert.ok(Array.isArray(res));
    for (const r of res) {
      assert.equal(r.success, true);
      assert.equal(typeof r.id, 'string');
    }
    ids = res.map((r) => r.id as string);
  });

  test('retrieve both, in the order asked', async () => {
    recs = await conn().sobject('Account').retrieve(ids);
    assert.deepEqual(
      recs.map((r) => r.Name),
      ['Birch Lane 1', 'Birch Lane 2'],
    );
    for (const r of recs) assert.ok(isPlainObject(r.attributes));
  });

  test('update both and read the new names back', async () => {
    const c = conn();
    const res = await c
      .sobject('Account')
      .update(recs.map((r) => ({ Id: r.Id as string, Name: `Renamed ${r.Name}` })));
    assert.ok(res.every((r) => r.success));
    const again = await c.sobject('Account').retrieve(ids);
    assert.deepEqual(
      again.map((r) => r.Name),
      ['Renamed Birch Lane 1', 'Renamed Birch Lane 2'],
    );
  });

  test('destroy both; retrieving them then gives nulls', async () => {
    const c = conn();
    const res = await c.sobject('Account').destroy(ids);
    assert.ok(res.every((r) => r.success));
    const gone = await c.sobject('Account').retrieve(ids);
    assert.deepEqual(gone, [null, null]);
  });
});

// jsforce runs these on a custom object with a non-unique external id; Invoice__c.Legacy_Ref__c is ours.
describe('upsert on an external id', () => {
  const ref = 'INV-REF-77';
  let id = '';
  test('an unknown key inserts and returns the new id', async () => {
    const res = await conn()
      .sobject('Invoice__c')
      .upsert({ Name: 'First invoice', Legacy_Ref__c: ref }, 'Legacy_Ref__c');
    assert.equal(res.success, true);
    assert.equal(typeof res.id, 'string');
    id = res.id as string;
  });

  // jsforce expects no id back: Salesforce's answer before v46.0 (204, no body); from v46.0 it is 200 + id.
  test('a known key updates (204 before v46.0, so no id) and the record changes', async () => {
    const c = conn();
    c.version = '45.0';
    const res = await c
      .sobject('Invoice__c')
      .upsert({ Name: 'First invoice v2', Legacy_Ref__c: ref }, 'Legacy_Ref__c');
    assert.equal(res.success, true);
    assert.equal(res.id, undefined);
    assert.equal((await c.sobject('Invoice__c').retrieve(id)).Name, 'First invoice v2');
  });

  test('a key held by two records fails with MULTIPLE_CHOICES and the record URLs', async () => {
    const c = conn();
    await c.sobject('Invoice__c').create({ Name: 'Twin invoice', Legacy_Ref__c: ref });
    await assert.rejects(
      c.sobject('Invoice__c').upsert({ Name: 'Which one?', Legacy_Ref__c: ref }, 'Legacy_Ref__c'),
      (e: Error & { content?: unknown }) =>
        e.name === 'MULTIPLE_CHOICES' && Array.isArray(e.content) && typeof e.content[0] === 'string',
    );
  });
});
