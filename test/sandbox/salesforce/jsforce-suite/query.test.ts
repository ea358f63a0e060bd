// Mirrors jsforce's integration file test/query.test.ts (16 tests): run, scanAll, queryMore, record
// events with and without autoFetch, piping, CSV streams, explain, and Query#update / Query#destroy.
// jsforce's "big table" is a custom object filled by its org setup; Contact (250 seeded rows) is ours.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { type Connection, SfDate } from 'jsforce';
import { connectTo, trackBulkJobCloses } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

// jsforce's field template: each matched record's own Name, then a suffix.
// biome-ignore lint/suspicious/noTemplateCurlyInString: jsforce template syntax, not a JS template
const RENAME = '${Name} (Updated)';
const { sf } = useSandbox();
let cached: { conn: Connection; closes: { settled(): Promise<void> } } | null = null;
const conn = () => {
  if (cached === null) {
    const c = connectTo(sf());
    cached = { conn: c, closes: trackBulkJobCloses(c) };
  }
  return cached.conn;
};
after(() => cached?.closes.settled());

const BIG = 'Contact';
const num = (v: unknown) => typeof v === 'number';
const never = () => ({ CreatedDate: { $lt: new SfDate('1970-01-01T00:00:00Z') } });

/** Runs a query as an event emitter, collecting its records, and returns the Query for its counters. */
async function scan(options: { autoFetch: boolean; maxFetch?: number }) {
  const records: unknown[] = [];
  const query = conn().query(`SELECT Id, Name FROM ${BIG}`);
  await new Promise((resolve, reject) => {
    query
      .on('record', (r) => records.push(r))
      .on('end', resolve)
      .on('error', reject)
      .run(options);
  });
  return { query, records };
}

test('run() a query and get totalSize', async () => {
  const res = await conn().query('SELECT Id, Name FROM Account').run();
  assert.ok(num(res.totalSize) && res.totalSize > 0, 'totalSize');
});

test('run({ scanAll: true }) finds a record that was just deleted', async () => {
  const made = await conn().sobject('Account').create({ Name: 'Short-lived Kiosk' });
  await conn()
    .sobject('Account')
    .record(made.id as string)
    .destroy();
  const res = await conn()
    .query('SELECT Id, IsDeleted, Name FROM Account WHERE IsDeleted = true')
    .run({ scanAll: true });
  assert.ok(res.totalSize > 0, 'deleted rows');
});

test('queryMore() through every page adds up to totalSize', async () => {
  const c = conn();
  let res = await c.query(`SELECT Id, Name FROM ${BIG}`, {
    headers: { 'Sforce-Query-Options': 'batchSize=200' },
  });
  const records = [...res.records];
  while (!res.done) {
    res = await c.queryMore(res.nextRecordsUrl as string);
    records.push(...res.records);
  }
  assert.equal(records.length, res.totalSize);
});

test('record events without autoFetch stop after the first batch', async () => {
  const { query, records } = await scan({ autoFetch: false });
  assert.equal(query.totalFetched, records.length);
  assert.equal(query.totalFetched, Math.min(query.totalSize, 2000));
});

test('record events with autoFetch and maxFetch 5000 fetch everything up to maxFetch', async () => {
  const { query, records } = await scan({ autoFetch: true, maxFetch: 5000 });
  assert.equal(query.totalFetched, records.length);
  assert.equal(query.totalFetched, Math.min(query.totalSize, 5000));
});

test('a slow object-mode consumer piped from run() still gets every record', async () => {
  const records: unknown[] = [];
  const query = conn().query(`SELECT Id, Name FROM ${BIG}`);
  // Every 50th record the consumer yields to the event loop before asking for more (back-pressure).
  const sink = new Writable({
    objectMode: true,
    write(rec, _enc, next) {
      records.push(rec);
      if (records.length % 50 === 0) setImmediate(next);
      else next();
    },
  });
  await new Promise((resolve, reject) => {
    query.run({ autoFetch: true, maxFetch: 5000 }).pipe(sink).on('finish', resolve).on('error', reject);
  });
  assert.equal(query.totalFetched, records.length);
  assert.equal(query.totalFetched, Math.min(query.totalSize, 5000));
});

test("stream('csv') gives CSV text headed by the selected fields", async () => {
  let text = '';
  const out = new Writable({
    write(chunk, _enc, next) {
      text += chunk.toString('utf8');
      next();
    },
  });
  await new Promise((resolve, reject) => {
    conn()
      .query('SELECT Id, Name FROM Account LIMIT 10')
      .stream('csv')
      .pipe(out)
      .on('finish', resolve)
      .on('error', reject);
  });
  assert.equal(text.split('\n')[0], 'Id,Name');
});

test('explain() returns query plans', async () => {
  const res = await conn().query('SELECT Id, Name FROM Account ORDER BY CreatedDate DESC LIMIT 10').explain();
  assert.ok(Array.isArray(res.plans) && res.plans.length > 0, 'plans');
  for (const p of res.plans) {
    assert.ok(num(p.cardinality) && num(p.relativeCost) && num(p.sobjectCardinality), 'plan numbers');
    assert.ok(Array.isArray(p.fields), 'fields');
    assert.equal(typeof p.leadingOperationType, 'string');
    assert.equal(typeof p.sobjectType, 'string');
  }
});

/** Creates `n` accounts named `${prefix} #i` in the state jsforce's test uses (BillingState CA). */
async function seedAccounts(prefix: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    Name: `${prefix} #${i + 1}`,
    BillingState: 'CA',
    NumberOfEmployees: 25 * (i + 1),
  }));
  const res = await conn().sobject('Account').create(rows, { allowRecursive: true });
  assert.equal(res.filter((r) => r.success).length, n);
}

/** Query#update with a `${Name}` template and a null, then checks every matching row changed. */
async function updateAndCheck(prefix: string, n: number, options: { allowBulk?: boolean } = {}) {
  const byName = { Name: { $like: `${prefix}%` } };
  const res = await conn()
    .sobject('Account')
    .find(byName)
    .update({ Name: RENAME, BillingState: null }, options);
  assert.equal(res.length, n);
  assert.ok(res.every((r) => typeof r.id === 'string' && r.success === true));
  const rows = await conn().sobject('Account').find(byName, 'Id, Name, BillingState');
  assert.equal(rows.length, n);
  assert.ok(rows.every((r) => /\(Updated\)$/.test(String(r.Name)) && r.BillingState === null));
}

async function destroyAll(prefix: string, n: number) {
  const res = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${prefix}%` } })
    .destroy();
  assert.equal(res.length, n);
  assert.ok(res.every((r) => typeof r.id === 'string' && r.success === true));
}

describe('Query#update and Query#destroy under the bulk threshold (20 rows, collections API)', () => {
  test('seed 20 accounts', () => seedAccounts('Pier Cafe', 20));
  test('update the matching accounts from a template', () => updateAndCheck('Pier Cafe', 20));
  test('update with a query that matches nothing returns []', async () => {
    const res = await conn().sobject('Account').find(never()).update({ Name: RENAME, BillingState: null });
    assert.deepEqual(res, []);
  });
  test('destroy the matching accounts', () => destroyAll('Pier Cafe', 20));
  test('destroy with a query that matches nothing returns []', async () => {
    assert.deepEqual(await conn().sobject('Account').find(never()).destroy(), []);
  });
});

describe('300 rows with allowBulk: false (collections in chunks of 200)', () => {
  test('seed 300 accounts with allowRecursive', () => seedAccounts('Dockside Stall', 300));
  test('update them without the Bulk API', () => updateAndCheck('Dockside Stall', 300, { allowBulk: false }));
  test('destroy them (over the threshold, so through the Bulk API)', () => destroyAll('Dockside Stall', 300));
});
