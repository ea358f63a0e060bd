// Mirrors jsforce's integration file test/bulk.test.ts (16 tests): Bulk API 1.0 loads from arrays and
// CSV files, bulk query to a file, session refresh, and Query#update / Query#destroy through the Bulk API.
import assert from 'node:assert/strict';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import jsforce, { type Connection, SfDate } from 'jsforce';
import { connectTo, trackBulkJobCloses } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

// jsforce's field template: each matched record's own Name, then a suffix.
// biome-ignore lint/suspicious/noTemplateCurlyInString: jsforce template syntax, not a JS template
const RENAME = '${Name} (Updated)';
const { sf } = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'jsforce-bulk-'));
const tracked: Array<{ settled(): Promise<void> }> = [];
/** jsforce polls every second by default; the sandbox answers at once, so poll quickly. */
function fast(c: Connection): Connection {
  c.bulk.pollInterval = 20;
  tracked.push(trackBulkJobCloses(c));
  return c;
}
let cached: Connection | null = null;
const conn = () => {
  cached ??= fast(connectTo(sf()));
  return cached;
};
after(() => Promise.all(tracked.map((t) => t.settled())));

type Result = { id?: string | null; success: boolean };
const allOk = (rets: Result[]) => rets.every((r) => typeof r.id === 'string' && r.success === true);
const PREFIX = 'Ferry Depot';
const byPrefix = (p = PREFIX) =>
  conn()
    .sobject('Account')
    .find({ Name: { $like: `${p}%` } }, 'Id, Name');
const isClientInputError = (e: unknown) => (e as Error).name === 'ClientInputError';
const never = { CreatedDate: { $lt: new SfDate('1970-01-01T00:00:00Z') } };

describe('load from arrays', () => {
  test('insert 200 good rows and one without a Name', async () => {
    const rows: Array<Record<string, unknown>> = Array.from({ length: 200 }, (_, i) => ({
      Name: `${PREFIX} #${i + 1}`,
      NumberOfEmployees: 10 * (i + 1),
    }));
    rows.push({ BillingState: 'CA' });
    const rets = (await conn().bulk.load('Account', 'insert', rows)) as Result[];
    assert.equal(rets.length, 201);
    assert.ok(allOk(rets.slice(0, 200)));
    assert.deepEqual([rets[200]?.id, rets[200]?.success], [null, false]);
  });

  test('update the inserted rows', async () => {
    const rows = (await byPrefix()).map((r) => ({ Id: r.Id, Name: `${r.Name} (Updated)` }));
    const rets = (await conn().bulk.load('Account', 'update', rows)) as Result[];
    assert.equal(rets.length, 200);
    assert.ok(allOk(rets));
  });

  test('update with no rows is a ClientInputError', async () => {
    await assert.rejects(async () => conn().bulk.load('Account', 'update', []), isClientInputError);
  });

  test('delete the rows', async () => {
    const rets = (await conn().bulk.load('Account', 'delete', await byPrefix())) as Result[];
    assert.equal(rets.length, 200);
    assert.ok(allOk(rets));
  });

  test('delete with no rows is a ClientInputError', async () => {
    await assert.rejects(async () => conn().bulk.load('Account', 'delete', []), isClientInputError);
  });
});

/** Pipes a CSV file into a batch and resolves with the batch results. */
function loadFile(operation: 'insert' | 'delete', file: string): Promise<Result[]> {
  const batch = conn().bulk.load('Account', operation);
  createReadStream(file).pipe(batch.stream());
  return new Promise((resolve, reject) => {
    batch.on('response', resolve);
    batch.on('error', reject);
  });
}

describe('CSV files', () => {
  test('insert from a CSV file', async () => {
    const file = join(dir, 'accounts.csv');
    const lines = Array.from(
      { length: 30 },
      (_, i) => `"${PREFIX} file #${i + 1}",${i + 3},Harbour Road ${i + 1}`,
    );
    writeFileSync(file, `Name,NumberOfEmployees,BillingStreet\n${lines.join('\n')}\n`);
    const rets = await loadFile('insert', file);
    assert.equal(rets.length, 30);
    assert.ok(allOk(rets));
  });

  test('delete from a CSV file of ids', async () => {
    const file = join(dir, 'delete.csv');
    writeFileSync(file, `Id\n${(await byPrefix()).map((r) => r.Id).join('\n')}\n`);
    const rets = await loadFile('delete', file);
    assert.equal(rets.length, 30);
    assert.ok(allOk(rets));
  });

  test('bulk query streamed to a file has every row plus a header', async () => {
    const file = join(dir, 'export.csv');
    const count = await conn().sobject('Contact').count({});
    const records: Array<Record<string, unknown>> = [];
    // jsforce 3.10 resolves bulk.query() to the record stream (its suite chains on the call itself).
    const parsable = await conn().bulk.query('SELECT Id, Name FROM Contact');
    await new Promise<void>((resolve, reject) => {
      parsable
        .on('record', (r: Record<string, unknown>) => records.push(r))
        .on('error', reject)
        .stream()
        .pipe(createWriteStream(file))
        .on('finish', () => resolve());
    });
    assert.equal(records.length, count);
    assert.ok(records.every((r) => typeof r.Id === 'string' && typeof r.Name === 'string'));
    const text = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
    assert.equal(text.split(/\r?\n/).length, count + 1);
  });
});

describe('expired session', () => {
  test('a refreshFn lets the load go through with a new token', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ Name: `Token Test Kiosk ${i}` }));
    const ins = (await conn().bulk.load('Account', 'insert', rows)) as Result[];
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
    const rets = (await other.bulk.load(
      'Account',
      'delete',
      ins.map((r) => ({ Id: r.id ?? undefined })),
    )) as Result[];
    assert.ok(refreshed);
    assert.equal(rets.length, 100);
    assert.ok(rets.every((r) => r.success));
  });

  test('without a refreshFn the load fails with InvalidSessionId', async () => {
    const other = fast(
      new jsforce.Connection({ instanceUrl: sf().url, accessToken: 'not-a-token', version: '62.0' }),
    );
    await assert.rejects(
      async () => other.bulk.load('Account', 'insert', [{ Name: 'Never Saved' }]),
      (e: Error) => e.name === 'InvalidSessionId',
    );
  });
});

async function seed(prefix: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({ Name: `${prefix} #${i + 1}`, BillingState: 'CA' }));
  assert.ok(allOk((await conn().bulk.load('Account', 'insert', rows)) as Result[]));
}
async function updateMatching(prefix: string, n: number, options: { bulkThreshold?: number } = {}) {
  const rets = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${prefix}%` } })
    .update({ Name: RENAME, BillingState: null }, options);
  assert.equal(rets.length, n);
  assert.ok(allOk(rets as Result[]));
  const rows = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${prefix}%` } }, 'Id, Name, BillingState');
  assert.equal(rows.length, n);
  assert.ok(rows.every((r) => /\(Updated\)$/.test(String(r.Name)) && r.BillingState === null));
}
async function destroyMatching(prefix: string, n: number, options: { bulkThreshold?: number } = {}) {
  const rets = await conn()
    .sobject('Account')
    .find({ Name: { $like: `${prefix}%` } })
    .destroy(options);
  assert.equal(rets.length, n);
  assert.ok(allOk(rets as Result[]));
}

describe('Query#update and Query#destroy over the bulk threshold (250 rows)', () => {
  test('update through the Bulk API', async () => {
    await seed('Canal Works', 250);
    await updateMatching('Canal Works', 250);
  });
  test('update with a query that matches nothing returns []', async () => {
    assert.deepEqual(await conn().sobject('Account').find(never).update({ Name: RENAME }), []);
  });
  test('destroy through the Bulk API', () => destroyMatching('Canal Works', 250));
  test('destroy with a query that matches nothing returns []', async () => {
    assert.deepEqual(await conn().sobject('Account').find(never).destroy(), []);
  });
});

describe('bulkThreshold: 0 forces the Bulk API for 20 rows', () => {
  test('update', async () => {
    await seed('Lock Keeper', 20);
    await updateMatching('Lock Keeper', 20, { bulkThreshold: 0 });
  });
  test('destroy', () => destroyMatching('Lock Keeper', 20, { bulkThreshold: 0 }));
});
