// Per-record truth under a scripted fault at every position of a Salesforce write: each call of
// each round, Collections and Bulk, insert, update and delete. The CRM's records are counted after
// each write; the table goes to the test's diagnostics.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type FollowedJob, followJob } from '../helpers/jobs.ts';
import { type Stack, startStack } from '../helpers/stack.ts';
import {
  type Fault,
  finishRow,
  type PositionRow,
  script,
  table,
  writeAndReplay,
} from './fault-positions-helpers.ts';
import { type RecordResult, stored, type WriteAnswer } from './sf-writes-helpers.ts';

type Operation = 'insert' | 'update' | 'delete';

const KINDS = ['error503', 'drop'] as const;
const CALL_KIND: Record<Operation, string> = {
  insert: 'collections.create',
  update: 'collections.update',
  delete: 'collections.delete',
};

interface Position {
  via: 'collections' | 'bulk2';
  name: string;
  faults: (operation: Operation) => Fault[];
}

/** 500 records are three Collections calls (200/200/100), one at a time with one slot. */
function collectionsPositions(): Position[] {
  const out: Position[] = [];
  for (const kind of KINDS) {
    for (const k of [0, 1, 2]) {
      out.push({
        via: 'collections',
        name: `round 1 call ${k + 1}: ${kind}`,
        faults: (op) => [{ kind, match: CALL_KIND[op], skip: k }],
      });
      // The call k answers UNABLE_TO_LOCK_ROW for all its records; their lock-retry call fails.
      out.push({
        via: 'collections',
        name: `round 2 after a lock on call ${k + 1}: ${kind}`,
        faults: (op) => [
          { kind: 'lock', match: CALL_KIND[op], skip: k },
          { kind, match: CALL_KIND[op], skip: 2 - k },
        ],
      });
    }
  }
  return out;
}

const BULK_CALLS = [
  'bulk2.createJob',
  'bulk2.upload',
  'bulk2.close',
  'bulk2.getJob',
  'bulk2.successfulResults',
  'bulk2.failedResults',
  'bulk2.unprocessedRecords',
];

function bulkPositions(): Position[] {
  const out: Position[] = [];
  for (const kind of KINDS) {
    for (const call of BULK_CALLS) {
      out.push({ via: 'bulk2', name: `round 1 ${call}: ${kind}`, faults: () => [{ kind, match: call }] });
    }
    // The job's records come back locked; the retry round (Collections for their number) fails.
    out.push({
      via: 'bulk2',
      name: `round 2 after a locked job: ${kind}`,
      faults: (op) => [
        { kind: 'lock', match: 'bulk2.close' },
        { kind, match: CALL_KIND[op] },
      ],
    });
  }
  return out;
}

let seq = 0;

async function runPosition(s: Stack, operation: Operation, position: Position): Promise<PositionRow> {
  const n = position.via === 'collections' ? 500 : 300;
  const prefix = `FP${seq++}x`;
  const names = Array.from({ length: n }, (_, i) => `${prefix} ${i}`);
  const existing =
    operation === 'insert'
      ? []
      : s.sf.org
          .insert(
            'Account',
            names.map((Name) => ({ Name })),
          )
          .map((r) => String(r.id));
  const body =
    operation === 'insert'
      ? { data: names.map((Name) => ({ Name })) }
      : operation === 'update'
        ? { data: existing.map((Id, i) => ({ Id, Name: `${names[i]} u` })) }
        : { data: { ids: existing } };
  const path = operation === 'delete' ? '/v1/object/delete' : `/v1/object/${operation}/Account`;
  await script(s.sf.url, position.faults(operation));
  const got = await writeAndReplay(
    s,
    path,
    s.tokens.salesforce,
    body,
    { 'x-crm-proxy-interface': position.via },
    `${prefix}-key`,
  );
  await script(s.sf.url, []);
  const stored_ = s.sf.org.query(`SELECT Name FROM Account WHERE Name LIKE '${prefix} %'`, {}).records;
  const byName = new Map<string, number>();
  for (const r of stored_) byName.set(String(r['Name']), (byName.get(String(r['Name'])) ?? 0) + 1);
  const applied = (_: RecordResult, i: number): boolean => {
    if (operation === 'insert') return (byName.get(names[i] as string) ?? 0) > 0;
    const record = stored(s, existing[i]);
    return operation === 'update' ? record?.['Name'] === `${names[i]} u` : record?.['IsDeleted'] === true;
  };
  const found = names.filter((_, i) => applied({ success: false, errors: [] }, i)).length;
  return finishRow(
    {
      crm: 'salesforce',
      operation,
      via: position.via,
      position: position.name,
      expected: n,
      found,
      doubled: operation === 'insert' ? stored_.length - byName.size : 0,
    },
    got,
    applied,
  );
}

for (const operation of ['insert', 'update', 'delete'] as const) {
  test(`salesforce ${operation}: a fault at every call of every round leaves per-record truth`, async (t) => {
    const s = await startStack(t, { env: { CRM_PROXY_CONNECTION_CONCURRENCY: '1' } });
    const rows: PositionRow[] = [];
    for (const position of [...collectionsPositions(), ...bulkPositions()]) {
      rows.push(await runPosition(s, operation, position));
    }
    t.diagnostic(`\n${table(rows)}`);
  });
}

test('salesforce async insert: a failed lock-retry round leaves the job completed with the written records and their ids', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_CONNECTION_CONCURRENCY: '1' } });
  await script(s.sf.url, [
    { kind: 'lock', match: 'collections.create', skip: 2 },
    { kind: 'error503', match: 'collections.create' },
  ]);
  const accepted = await s.api<{ id: string }>('/v1/object/insert/Account', {
    headers: { prefer: 'respond-async', 'x-crm-proxy-interface': 'collections' },
    body: { data: Array.from({ length: 500 }, (_, i) => ({ Name: `FPJ ${i}` })) },
  });
  assert.equal(accepted.status, 202, accepted.text);
  const { job } = await followJob<FollowedJob & { counts: Record<string, number> }>(s, accepted.body.id);
  assert.equal(job.state, 'completed');
  assert.deepEqual(job.counts, { total: 500, processed: 500, succeeded: 400, failed: 100 });
  const page = await s.api<WriteAnswer>(`/v1/jobs/${accepted.body.id}/results?limit=1000`, { method: 'GET' });
  assert.equal(page.status, 200, page.text);
  page.body.data.forEach((r, i) => {
    if (i < 400) assert.equal(stored(s, r.id)?.['Name'], `FPJ ${i}`);
    else assert.equal(r.errors[0]?.statusCode, 'SERVER_UNAVAILABLE');
  });
  assert.equal(s.sf.org.query("SELECT Name FROM Account WHERE Name LIKE 'FPJ %'", {}).totalSize, 400);
});

test('salesforce bulk delete over two objects: one job failing leaves the other job’s deletions reported', async (t) => {
  const s = await startStack(t);
  const accounts = s.sf.org
    .insert('Account', [{ Name: 'FPD a' }, { Name: 'FPD b' }])
    .map((r) => String(r.id));
  const invoices = s.sf.org.insert('Invoice__c', [{ Name: 'FPD c' }]).map((r) => String(r.id));
  await script(s.sf.url, [{ kind: 'error503', match: 'bulk2.upload' }]);
  const answer = await s.api<WriteAnswer>('/v1/object/delete', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: { ids: [...accounts, ...invoices] } },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  const ids = [...accounts, ...invoices];
  answer.body.data.forEach((r, i) => {
    assert.equal(r.success, stored(s, ids[i])?.['IsDeleted'] === true, `record ${i}: ${JSON.stringify(r)}`);
  });
  const ok = answer.body.data.filter((r) => r.success).length;
  assert.ok(ok === 1 || ok === 2, `one object's records deleted: ${ok}`);
});

test('salesforce upsert: a fault at each call (lookup, write) leaves per-record truth', async (t) => {
  const s = await startStack(t);
  const rows: PositionRow[] = [];
  for (const matchKey of ['Name', 'External_Id__c']) {
    for (const kind of KINDS) {
      for (const k of [0, 1]) {
        const prefix = `FPU${seq++}x`;
        const record = { Name: `${prefix} 0`, External_Id__c: `${prefix}-ext` };
        await script(s.sf.url, [{ kind, skip: k }]);
        const got = await writeAndReplay(
          s,
          '/v1/object/upsert/Account',
          s.tokens.salesforce,
          { data: [record], match_key: matchKey },
          {},
          `${prefix}-key`,
        );
        await script(s.sf.url, []);
        const found = s.sf.org.query(`SELECT Name FROM Account WHERE Name = '${prefix} 0'`, {}).totalSize;
        const base = { crm: 'salesforce', operation: 'upsert', via: `match ${matchKey}` };
        rows.push(
          finishRow(
            {
              ...base,
              position: `call ${k + 1}: ${kind}`,
              expected: 1,
              found: Math.min(found, 1),
              doubled: Math.max(0, found - 1),
            },
            got,
            () => found > 0,
          ),
        );
      }
    }
  }
  t.diagnostic(`\n${table(rows)}`);
});
