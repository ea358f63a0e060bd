// Mirrors jsforce's integration file test/bulk2.test.ts (16 tests): Bulk API 2.0 ingest from arrays
// and CSV files, bulk2 query, session refresh, and Query#update / Query#destroy with bulkApiVersion 2.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import jsforce, { type Connection, SfDate, type Record as SfRecord } from 'jsforce';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

// jsforce's field template: each matched record's own Name, then a suffix.
// biome-ignore lint/suspicious/noTemplateCurlyInString: jsforce template syntax, not a JS template
const RENAME = '${Name} (Updated)';
const { sf } = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'jsforce-bulk2-'));
/** jsforce polls every second by default; the sandbox answers at once, so poll quickly. */
const fast = (c: Connection) => {
  c.bulk2.pollInterval = 20;
  return c;
};
let cached: Connection | null = null;
const conn = () => {
  cached ??= fast(connectTo(sf()));
  return cached;
};
let serial = 0;
const batchName = () => `Tram Stop ${++serial}`;
const never = { CreatedDate: { $lt: new SfDate('1970-01-01T00:00:00Z') } };
type Results = Awaited<ReturnType<Connection['bulk2']['loadAndWaitForResults']>>;

const load = (operation: 'insert' | 'update' | 'delete', input: SfRecord[] | Readable) =>
  conn().bulk2.loadAndWaitForResults({ object: 'Account', operation, input });

function expectAllOk(res: Results, n: number, operation: string) {
  assert.equal(res.successfulResults.length, n);
  for (const r of res.successfulResults) {
    assert.equal(typeof r.sf__Id, 'string');
    assert.equal(r.sf__Created, operation === 'insert' ? 'true' : 'false');
  }
  assert.deepEqual([res.failedResults.length, res.unprocessedRecords.length], [0, 0]);
}
async function insertNamed(name: string, n = 20) {
  expectAllOk(
    await load(
      'insert',
      Array.from({ length: n }, () => ({ Name: name })),
    ),
    n,
    'insert',
  );
}
const findNamed = (name: string) =>
  conn()
    .sobject('Account')
    .find({ Name: { $like: `${name}%` } }, ['Id', 'Name']);

// jsforce 3.10.16 uploads an empty CSV for [] and its suite expects three empty lists: the sandbox
// accepts an empty 2.0 upload and completes the job with no rows (docs/sandboxes.md says why).

describe('ingest from arrays', () => {
  test('insert 200 good rows and one without a Name, which fails with REQUIRED_FIELD_MISSING', async () => {
    const name = batchName();
    const rows: SfRecord[] = Array.from({ length: 200 }, (_, i) => ({
      Name: name,
      NumberOfEmployees: 5 * (i + 1),
    }));
    rows.push({ BillingState: 'CA' });
    const res = await load('insert', rows);
    assert.equal(res.successfulResults.length, 200);
    assert.ok(res.successfulResults.every((r) => typeof r.sf__Id === 'string' && r.sf__Created === 'true'));
    assert.equal(res.failedResults.length, 1);
    assert.equal(res.failedResults[0]?.sf__Id, '');
    assert.equal(
      res.failedResults[0]?.sf__Error,
      'REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --',
    );
    assert.equal(res.unprocessedRecords.length, 0);
  });

  test('update 20 rows', async () => {
    const name = batchName();
    await insertNamed(name);
    const rows = (await findNamed(name)).map((r) => ({ ...r, Name: `${r.Name} (Updated)` }));
    expectAllOk(await load('update', rows), 20, 'update');
  });

  test('insert with no rows gives three empty result lists, not an error', async () => {
    const res = await load('insert', []);
    assert.deepEqual([res.successfulResults, res.failedResults, res.unprocessedRecords], [[], [], []]);
  });

  test('delete 20 rows', async () => {
    const name = batchName();
    await insertNamed(name);
    expectAllOk(await load('delete', await findNamed(name)), 20, 'delete');
  });

  test('delete with no rows gives three empty result lists, not an error', async () => {
    const res = await load('delete', []);
    assert.deepEqual([res.successfulResults, res.failedResults, res.unprocessedRecords], [[], [], []]);
  });
});

describe('CSV files and query', () => {
  test('insert 100 rows from a CSV file', async () => {
    const file = join(dir, 'accounts.csv');
    const lines = Array.from({ length: 100 }, (_, i) => `"Signal Box ${i + 1}, North",${i + 1}`);
    writeFileSync(file, `Name,NumberOfEmployees\n${lines.join('\n')}\n`);
    expectAllOk(await load('insert', createReadStream(file)), 100, 'insert');
  });

  test('delete 20 rows from a CSV file of ids', async () => {
    const name = batchName();
    await insertNamed(name);
    const file = join(dir, 'delete.csv');
    writeFileSync(file, `Id\n${(await findNamed(name)).map((r) => r.Id).join('\n')}\n`);
    expectAllOk(await load('delete', createReadStream(file)), 20, 'delete');
  });

  test('bulk2.query returns every row of the object', async () => {
    const count = await conn().sobject('Contact').count({});
    const rows = await conn().bulk2.query('SELECT Id, Name FROM Contact');
    const list: SfRecord[] = [];
    for await (const r of rows) list.push(r as SfRecord);
    assert.equal(list.length, count);
    assert.ok(list.every((r) => typeof r.Id === 'string' && typeof r.Name === 'string'));
  });
});

describe('expired session', () => {
  test('a refreshFn lets the job go through with a new token', async () => {
    const ins = await load(
      'insert',
      Array.from({ length: 100 }, (_, i) => ({ Name: `Token Kiosk ${i}` })),
    );
    let refreshed = false;
    const other = fast(
      new jsforce.Connection({
        instanceUrl: sf().url,
        accessToken: 'not-a-token',
        version: '62.0',
        refreshFn: (_c, cb) => {
          refreshed = true;
          cb(null, sf().credentials.accessToken);
        },
      }),
    );
    const input = ins.successfulResults.map((r) => ({ Id: r.sf__Id }));
    const res = await other.bulk2.loadAndWaitForResults({ object: 'Account', operation: 'delete', input });
    assert.ok(refreshed);
    expectAllOk(res, 100, 'delete');
  });

  test('without a refreshFn the job fails with INVALID_SESSION_ID', async () => {
    const other = fast(
      new jsforce.Connection({ instanceUrl: sf().url, accessToken: 'not-a-token', version: '62.0' }),
    );
    await assert.rejects(
      other.bulk2.loadAndWaitForResults({
        object: 'Account',
        operation: 'insert',
        input: [{ Name: 'Never Saved' }],
      }),
      (e: Error) => e.name === 'INVALID_SESSION_ID',
    );
  });
});

async function updateMatching(name: string, n: number, options: { bulkThreshold?: number }) {
  const found = conn()
    .sobject('Account')
    .find({ Name: { $like: `${name}%` } });
  const rets = await found.update({ Name: RENAME, BillingState: null }, { ...options, bulkApiVersion: 2 });
  assert.equal(rets.length, n);
  assert.ok(rets.every((r) => typeof r.id === 'string' && r.success === true));
  const rows = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${name}%` } }, 'Id, Name, BillingState');
  assert.equal(rows.length, n);
  assert.ok(rows.every((r) => /\(Updated\)$/.test(String(r.Name)) && r.BillingState === null));
}
async function destroyMatching(name: string, n: number, options: { bulkThreshold?: number }) {
  const rets = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${name}%` } })
    .destroy({ ...options, bulkApiVersion: 2 });
  assert.equal(rets.length, n);
  assert.ok(rets.every((r) => typeof r.id === 'string' && r.success === true));
}
const seed = async (name: string, n: number) =>
  expectAllOk(
    await load(
      'insert',
      Array.from({ length: n }, (_, i) => ({ Name: `${name} #${i + 1}`, BillingState: 'CA' })),
    ),
    n,
    'insert',
  );

describe('Query#update and Query#destroy with bulkApiVersion 2', () => {
  test('update 250 rows', async () => {
    const name = batchName();
    await seed(name, 250);
    await updateMatching(name, 250, {});
  });
  test('update with a query that matches nothing returns []', async () => {
    const found = conn().sobject('Account').find(never);
    assert.deepEqual(await found.update({ Name: RENAME }, { bulkApiVersion: 2 }), []);
  });
  test('destroy 250 rows', async () => {
    const name = batchName();
    await insertNamed(name, 250);
    await destroyMatching(name, 250, {});
  });
  test('destroy with a query that matches nothing returns []', async () => {
    assert.deepEqual(await conn().sobject('Account').find(never).destroy({ bulkApiVersion: 2 }), []);
  });
  test('update 20 rows with bulkThreshold 0', async () => {
    const name = batchName();
    await seed(name, 20);
    await updateMatching(name, 20, { bulkThreshold: 0 });
  });
  test('destroy 20 rows with bulkThreshold 0', async () => {
    const name = batchName();
    await insertNamed(name, 20);
    await destroyMatching(name, 20, { bulkThreshold: 0 });
  });
});
