import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsforce from 'jsforce';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { trackBulkJobCloses } from './jsforce-helpers.ts';

const N = 10_000;

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const sf = await startSalesforceSandbox({ port: 0 });
  const conn = new jsforce.Connection({
    instanceUrl: sf.url,
    accessToken: sf.credentials.accessToken,
    version: '62.0',
  });
  const jobCloses = trackBulkJobCloses(conn);
  t.after(async () => {
    await jobCloses.settled();
    await sf.close();
  });
  // Polls every second by default; the sandbox finishes in milliseconds.
  conn.bulk.pollInterval = 20;
  conn.bulk2.pollInterval = 20;
  return { sf, conn };
}

const records = (prefix: string) =>
  Array.from({ length: N }, (_v, i) => ({
    Name: `${prefix} ${i}`,
    External_Id__c: `${prefix}-${i}`,
    NumberOfEmployees: i,
  }));

test('jsforce bulk2.loadAndWaitForResults inserts 10 000 records; results map back by external id', async (t) => {
  const { sf, conn } = await start(t);
  const input = records('B2');
  input[17] = { Name: '', External_Id__c: 'B2-17', NumberOfEmployees: 17 }; // fails: Name required
  const res = await conn.bulk2.loadAndWaitForResults({
    object: 'Account',
    operation: 'insert',
    input,
    pollInterval: 20,
    pollTimeout: 60_000,
  });
  assert.equal(res.successfulResults.length, N - 1);
  assert.equal(res.failedResults.length, 1);
  assert.equal(res.unprocessedRecords.length, 0);
  const failed = res.failedResults[0] as unknown as Record<string, string>;
  assert.equal(failed.External_Id__c, 'B2-17');
  assert.match(failed.sf__Error ?? '', /^REQUIRED_FIELD_MISSING:/);
  // Every success row carries its own input columns, so it maps back without relying on position.
  for (const row of res.successfulResults.slice(0, 200) as unknown as Record<string, string>[]) {
    const i = Number(row.External_Id__c?.slice(3));
    assert.equal(row.Name, `B2 ${i}`);
    assert.equal(row.sf__Created, 'true');
    assert.match(row.sf__Id ?? '', /^001/);
  }
  const count = await conn.query("SELECT COUNT() FROM Account WHERE Name LIKE 'B2 %'");
  assert.equal(count.totalSize, N - 1);
  assert.equal(sf.accounting.count('bulk2.createJob'), 1);
  assert.equal(sf.accounting.count('bulk2.upload'), 1);
  assert.equal(sf.accounting.count('bulk2.close'), 1);
});

test('jsforce bulk.load (Bulk API 1.0, XML jobs, one CSV batch) inserts 10 000 records, results in request order', async (t) => {
  const { sf, conn } = await start(t);
  const input = records('B1');
  input[5] = { Name: '', External_Id__c: 'B1-5', NumberOfEmployees: 5 };
  const results = await conn.bulk.load('Account', 'insert', input);
  assert.equal(results.length, N);
  const bad = results[5];
  assert.equal(bad?.success, false);
  assert.match(
    String(bad?.errors[0]),
    /^REQUIRED_FIELD_MISSING:Required fields are missing: \[Name\]:Name --$/,
  );
  // Positional correspondence: result i belongs to record i.
  const ids = results.filter((r) => r.success).map((r) => r.id as string);
  assert.equal(ids.length, N - 1);
  const sample = await conn.query(
    `SELECT Id, External_Id__c FROM Account WHERE Id IN ('${results[0]?.id}','${results[9999]?.id}')`,
  );
  const byId = new Map(sample.records.map((r) => [r.Id, r.External_Id__c]));
  assert.equal(byId.get(results[0]?.id ?? ''), 'B1-0');
  assert.equal(byId.get(results[9999]?.id ?? ''), 'B1-9999');
  assert.equal(sf.accounting.count('bulk1.createJob'), 1);
  assert.equal(sf.accounting.count('bulk1.addBatch'), 1);
  assert.equal(sf.accounting.count('bulk1.closeJob'), 1);
});

test('jsforce bulk.load update and delete, with #N/A clearing a field', async (t) => {
  const { conn } = await start(t);
  const inserted = await conn.bulk.load('Account', 'insert', [
    { Name: 'Keep', Phone: '555-0101' },
    { Name: 'Gone', Phone: '555-0102' },
  ]);
  const [a, b] = inserted.map((r) => r.id as string);
  const updated = await conn.bulk.load('Account', 'update', [{ Id: a, Phone: null, Name: 'Kept' }]);
  assert.equal(updated[0]?.success, true);
  assert.equal(updated[0]?.created, false);
  const rec = await conn.sobject('Account').retrieve(a ?? '');
  assert.equal(rec.Name, 'Kept');
  assert.equal(rec.Phone, null);
  const deleted = await conn.bulk.load('Account', 'delete', [{ Id: b }]);
  assert.equal(deleted[0]?.success, true);
  const left = await conn.query(`SELECT Id FROM Account WHERE Id = '${b}'`);
  assert.equal(left.totalSize, 0);
});

test('jsforce bulk2.query reads a query job back as records', async (t) => {
  const { sf, conn } = await start(t);
  sf.org.insert('Account', [
    { Name: 'BQ one', NumberOfEmployees: 1 },
    { Name: 'BQ two', NumberOfEmployees: 2 },
  ]);
  const stream = await conn.bulk2.query(
    "SELECT Name, NumberOfEmployees FROM Account WHERE Name LIKE 'BQ %' ORDER BY Name",
    { pollInterval: 20 },
  );
  // A Parsable record stream: an object-mode Readable of parsed CSV rows.
  const rows: Record<string, unknown>[] = [];
  for await (const r of stream) rows.push(r as Record<string, unknown>);
  assert.deepEqual(rows, [
    { Name: 'BQ one', NumberOfEmployees: '1' },
    { Name: 'BQ two', NumberOfEmployees: '2' },
  ]);
});
