// Per-record truth under a scripted fault at every position of a HubSpot write: each batch call
// of insert, update and delete (and the read delete makes first), and each call of an upsert. The
// portal's records are counted after each write; the table goes to the test's diagnostics.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  type Fault,
  finishRow,
  type PositionRow,
  script,
  table,
  writeAndReplay,
} from './fault-positions-helpers.ts';
import type { RecordResult, WriteAnswer } from './sf-writes-helpers.ts';

type Operation = 'insert' | 'update' | 'delete' | 'upsert';

const KINDS = ['error503', 'error500', 'lock', 'drop'] as const;
/** 250 records are three batches (100/100/50), one at a time with one slot. */
const N = 250;
const CALLS: Record<Operation, Array<{ match?: string; skip: number; name: string }>> = {
  insert: [0, 1, 2].map((k) => ({ match: 'objects.batch.create', skip: k, name: `batch ${k + 1}` })),
  update: [0, 1, 2].map((k) => ({ match: 'objects.batch.update', skip: k, name: `batch ${k + 1}` })),
  delete: [
    ...[0, 1, 2].map((k) => ({ match: 'objects.batch.read', skip: k, name: `existence read ${k + 1}` })),
    ...[0, 1, 2].map((k) => ({ match: 'objects.batch.archive', skip: k, name: `batch ${k + 1}` })),
  ],
  // Upsert on a non-unique property: a search, then a create or an update.
  upsert: [0, 1].map((k) => ({ skip: k, name: `call ${k + 1}` })),
};

const contacts = (s: Stack) => s.hs.portal.records.list('0-1');
let seq = 0;

async function setUp(s: Stack, operation: Operation, prefix: string, n: number): Promise<string[]> {
  if (operation === 'insert') return [];
  const made = await s.api<WriteAnswer>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: { data: Array.from({ length: n }, (_, i) => ({ firstname: `${prefix} ${i}`, jobtitle: prefix })) },
  });
  assert.equal(made.status, 200, made.text.slice(0, 300));
  return made.body.data.map((r) => String(r.id));
}

function request(
  operation: Operation,
  prefix: string,
  ids: string[],
  n: number,
): { path: string; body: unknown } {
  const path = operation === 'delete' ? '/v1/object/delete/contacts' : `/v1/object/${operation}/contacts`;
  if (operation === 'insert') {
    return { path, body: { data: Array.from({ length: n }, (_, i) => ({ firstname: `${prefix} ${i}` })) } };
  }
  if (operation === 'update') {
    return { path, body: { data: ids.map((id, i) => ({ id, firstname: `${prefix} ${i} u` })) } };
  }
  if (operation === 'delete') return { path, body: { data: { ids } } };
  return { path, body: { data: [{ jobtitle: prefix, firstname: `${prefix} 0 u` }], match_key: 'jobtitle' } };
}

async function runPosition(
  s: Stack,
  operation: Operation,
  call: (typeof CALLS)[Operation][number],
  kind: string,
): Promise<PositionRow> {
  const n = operation === 'upsert' ? 1 : N;
  const prefix = `HFP${seq++}x`;
  const ids = await setUp(s, operation, prefix, n);
  const { path, body } = request(operation, prefix, ids, n);
  const fault: Fault = { kind, skip: call.skip, ...(call.match === undefined ? {} : { match: call.match }) };
  await script(s.hs.url, [fault]);
  const got = await writeAndReplay(s, path, s.tokens.hubspot, body, {}, `${prefix}-key`);
  await script(s.hs.url, []);
  const mine = contacts(s).filter((r) => String(r.properties['firstname']).startsWith(`${prefix} `));
  const names = new Map<string, number>();
  for (const r of mine)
    names.set(String(r.properties['firstname']), (names.get(String(r.properties['firstname'])) ?? 0) + 1);
  const applied = (_: RecordResult, i: number): boolean => {
    if (operation === 'insert') return (names.get(`${prefix} ${i}`) ?? 0) > 0;
    if (operation === 'delete') return s.hs.portal.records.get('0-1', ids[i] as string) === undefined;
    return s.hs.portal.records.get('0-1', ids[i] as string)?.properties['firstname'] === `${prefix} ${i} u`;
  };
  const found = Array.from({ length: n }, (_, i) => applied({ success: false, errors: [] }, i)).filter(
    Boolean,
  ).length;
  return finishRow(
    {
      crm: 'hubspot',
      operation,
      via: operation === 'upsert' ? 'search + write' : 'batch',
      position: `${call.name}: ${kind}`,
      expected: n,
      found,
      doubled: operation === 'insert' ? mine.length - names.size : 0,
    },
    got,
    applied,
  );
}

for (const operation of ['insert', 'update', 'delete', 'upsert'] as const) {
  test(`hubspot ${operation}: a fault at every call leaves per-record truth`, async (t) => {
    const s = await startStack(t, { env: { CRM_PROXY_CONNECTION_CONCURRENCY: '1' } });
    const rows: PositionRow[] = [];
    for (const call of CALLS[operation]) {
      for (const kind of KINDS) rows.push(await runPosition(s, operation, call, kind));
    }
    t.diagnostic(`\n${table(rows)}`);
  });
}

test('hubspot async insert: a failed batch leaves the job completed with the written records and their ids', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_CONNECTION_CONCURRENCY: '1' } });
  await script(s.hs.url, [{ kind: 'error503', match: 'objects.batch.create', skip: 1 }]);
  const accepted = await s.api<{ id: string }>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    headers: { prefer: 'respond-async' },
    body: { data: Array.from({ length: N }, (_, i) => ({ firstname: `HFPJ ${i}` })) },
  });
  assert.equal(accepted.status, 202, accepted.text);
  let job: { state: string; counts: Record<string, number> } = { state: 'queued', counts: {} };
  await waitFor(
    'the job to end',
    async () => {
      const got = await s.api<typeof job>(`/v1/jobs/${accepted.body.id}`, {
        method: 'GET',
        token: s.tokens.hubspot,
      });
      job = got.body;
      return !['queued', 'running'].includes(job.state);
    },
    { timeoutMs: 60_000 },
  );
  assert.equal(job.state, 'completed');
  assert.deepEqual(job.counts, { total: N, processed: N, succeeded: 150, failed: 100 });
  const page = await s.api<WriteAnswer>(`/v1/jobs/${accepted.body.id}/results?limit=1000`, {
    method: 'GET',
    token: s.tokens.hubspot,
  });
  assert.equal(page.status, 200, page.text);
  page.body.data.forEach((r, i) => {
    const stored = r.id === null || r.id === undefined ? undefined : s.hs.portal.records.get('0-1', r.id);
    if (r.success) assert.equal(stored?.properties['firstname'], `HFPJ ${i}`);
    else assert.equal(r.id, null, `record ${i} failed and was not written (id null, as the API promises)`);
  });
  const written = contacts(s).filter((r) => String(r.properties['firstname']).startsWith('HFPJ '));
  assert.equal(written.length, 150);
});
