// What a re-run does with what an interrupted run journaled, driven through the job runner on a
// real stack: a Collections insert that may have been applied is reconciled, never resent blindly;
// a Bulk job left Open is aborted and the write starts over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interruptedJob } from '../helpers/interrupted-job.ts';
import type { Stack } from '../helpers/stack.ts';
import { startStack } from '../helpers/stack.ts';
import { countWhere, type RecordResult, type WriteAnswer } from './sf-writes-helpers.ts';

async function resultsOf(s: Stack, id: string): Promise<RecordResult[]> {
  const got = await s.api<{ data: RecordResult[] }>(`/v1/jobs/${id}/results`, { method: 'GET' });
  assert.equal(got.status, 200);
  return got.body.data;
}

test('an insert call that may have reached Salesforce: what it created is found, the rest sent once', async (t) => {
  const s = await startStack(t);
  // The interrupted call had created its first record before the crash.
  const before = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Recon-0' }] },
  });
  const createdId = before.body.data[0]?.id;
  const records = [{ Name: 'Recon-0' }, { Name: 'Recon-1' }, { Name: 'Recon-0', Industry: 'Energy' }];
  const since = new Date(Date.now() - 60_000).toISOString();
  const id = await interruptedJob(
    s,
    'salesforce',
    'insert',
    { objectName: 'Account', records, via: 'collections' },
    { 'r1:collections:insert:0': { state: 'sending', at: since } },
  );
  const results = await resultsOf(s, id);
  assert.equal(results[0]?.id, createdId, 'found, not written again');
  assert.ok(results[1]?.success && results[1].id !== createdId);
  assert.ok(results[2]?.success && results[2].id !== createdId, 'other content: not the same record');
  assert.equal(countWhere(s, 'Account', 'Name', 'Recon-0'), 2);
  assert.equal(countWhere(s, 'Account', 'Name', 'Recon-1'), 1);
  assert.equal(s.sf.accounting.count('oauth.userinfo'), 1);
});

test('a record whose content cannot be compared is answered CRM_PROXY_OUTCOME_UNKNOWN and never resent', async (t) => {
  const s = await startStack(t);
  const records = [
    { LastName: 'Unknowable', Account: { External_Id__c: 'NOPE-1' } },
    { LastName: 'Knowable' },
  ];
  const since = new Date(Date.now() - 60_000).toISOString();
  const calls = s.sf.accounting.count('collections.create');
  const id = await interruptedJob(
    s,
    'salesforce',
    'insert',
    { objectName: 'Contact', records, via: 'collections' },
    { 'r1:collections:insert:0': { state: 'sending', at: since } },
  );
  const results = await resultsOf(s, id);
  assert.equal(results[0]?.success, false);
  assert.equal(results[0]?.errors[0]?.statusCode, 'CRM_PROXY_OUTCOME_UNKNOWN');
  assert.match(results[0]?.errors[0]?.message ?? '', /before inserting it again/);
  assert.ok(results[1]?.success, 'the comparable record, not found, is sent');
  assert.equal(s.sf.accounting.count('collections.create'), calls + 1);
  assert.equal(countWhere(s, 'Contact', 'LastName', 'Unknowable'), 0);
});

test('answered calls are reused from the journal; an update call marked sending is sent again', async (t) => {
  const s = await startStack(t);
  const made = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Upd-0' }, { Name: 'Upd-1' }] },
  });
  const ids = made.body.data.map((r) => r.id as string);
  const calls = s.sf.accounting.count('collections.create');
  const journaled = { id: '001000000000000AAA', success: true, errors: [] };
  const reused = await interruptedJob(
    s,
    'salesforce',
    'insert',
    { objectName: 'Account', records: [{ Name: 'Never-sent' }], via: 'collections' },
    { 'r1:collections:insert:0': { state: 'done', results: [journaled] } },
  );
  assert.deepEqual(await resultsOf(s, reused), [journaled]);
  assert.equal(s.sf.accounting.count('collections.create'), calls, 'no call for an answered chunk');
  assert.equal(countWhere(s, 'Account', 'Name', 'Never-sent'), 0);

  const updates = s.sf.accounting.count('collections.update');
  const resent = await interruptedJob(
    s,
    'salesforce',
    'update',
    { objectName: 'Account', records: ids.map((i) => ({ Id: i, Industry: 'Energy' })), via: 'collections' },
    { 'r1:collections:update:0': { state: 'sending', at: new Date().toISOString() } },
  );
  assert.ok((await resultsOf(s, resent)).every((r) => r.success));
  assert.equal(s.sf.accounting.count('collections.update'), updates + 1, 'same values again: safe to send');
  assert.equal(s.sf.accounting.count('oauth.userinfo'), 0, 'nothing to reconcile for an update');
  assert.equal(s.sf.org.get(ids[0] ?? '')?.record['Industry'], 'Energy');
});

test('a Bulk job the crash left Open is aborted and the write starts over with a new job', async (t) => {
  const s = await startStack(t);
  const base = `${s.sf.url}/services/data/v62.0/jobs/ingest`;
  const auth = {
    authorization: `Bearer ${s.sf.credentials.accessToken}`,
    'content-type': 'application/json',
  };
  const open = (await (
    await fetch(base, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' }),
    })
  ).json()) as { id: string };
  const records = [{ Name: 'Bulk-Open-0' }, { Name: 'Bulk-Open-1' }];
  const id = await interruptedJob(
    s,
    'salesforce',
    'insert',
    { objectName: 'Account', records, via: 'bulk2' },
    { 'r1:bulk:Account': { jobId: open.id, at: new Date().toISOString() } },
  );
  const state = (await (await fetch(`${base}/${open.id}`, { headers: auth })).json()) as { state: string };
  assert.equal(state.state, 'Aborted');
  const results = await resultsOf(s, id);
  assert.ok(results.every((r) => r.success));
  assert.equal(countWhere(s, 'Account', 'Name', 'Bulk-Open-'), 2);
  const job = await s.store.jobs.find(id);
  assert.equal(job?.crmJobIds.length, 1);
  assert.notEqual(job?.crmJobIds[0], open.id);
});

test('jobs version 0.1.0 stored (whole input in the row, gzipped JSON) are resumed and complete, each record once, in order', async (t) => {
  const s = await startStack(t);
  for (const format of ['gz'] as const) {
    const records = Array.from({ length: 620 }, (_, i) => ({ Name: `Legacy-${format}-${i}` }));
    const id = await interruptedJob(
      s,
      'salesforce',
      'insert',
      { objectName: 'Account', records, via: 'collections' },
      {},
      format,
    );
    const results = await resultsOf(s, id);
    assert.equal(results.length, records.length);
    assert.ok(results.every((r) => r.success));
    const names = results.map((r) => s.sf.org.get(r.id ?? '')?.record['Name']);
    assert.deepEqual(
      names,
      records.map((r) => r.Name),
      'results in input order',
    );
    assert.equal(countWhere(s, 'Account', 'Name', `Legacy-${format}-`), records.length);
  }
});
