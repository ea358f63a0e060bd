// HubSpot writes as durable jobs: an async insert through the job API, and what a job resumed after
// a crash does with a batch that was being sent (creates never resent, updates sent again).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interruptedJob } from '../helpers/interrupted-job.ts';
import type { Stack } from '../helpers/stack.ts';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';

interface RecordResult {
  id?: string;
  success: boolean;
  errors: { statusCode: string; message: string }[];
}

interface Job {
  id: string;
  state: string;
  counts: { total: number; processed: number; succeeded: number; failed: number };
}

async function resultsOf(s: Stack, id: string): Promise<RecordResult[]> {
  const got = await s.api<{ data: RecordResult[] }>(`/v1/jobs/${id}/results`, {
    method: 'GET',
    token: s.tokens.hubspot,
  });
  assert.equal(got.status, 200);
  return got.body.data;
}

test('an async HubSpot insert runs as a job: 202, counts to the end, results in input order', async (t) => {
  const s = await startStack(t, { hubspot: { batchResultOrder: 'shuffled' } });
  const records = Array.from({ length: 250 }, (_, i) => ({
    email: `job-hs-${i}@example.com`,
    firstname: `Job${i}`,
  }));
  const accepted = await s.api<Job>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: { data: records },
    headers: { prefer: 'respond-async' },
  });
  assert.equal(accepted.status, 202);
  const location = accepted.headers.get('location');
  assert.equal(location, `/v1/jobs/${accepted.body.id}`);
  let job: Job | undefined;
  await waitFor('the HubSpot job to complete', async () => {
    job = (await s.api<Job>(location as string, { method: 'GET', token: s.tokens.hubspot })).body;
    return job.state === 'completed';
  });
  assert.deepEqual(job?.counts, { total: 250, processed: 250, succeeded: 250, failed: 0 });
  const results = await resultsOf(s, accepted.body.id);
  assert.equal(results.length, 250);
  results.forEach((r, i) => {
    const stored = s.hs.portal.records.get('0-1', r.id as string);
    assert.equal(stored?.properties['email'], `job-hs-${i}@example.com`, `result ${i} is record ${i}`);
  });
  assert.equal(s.hs.accounting.count('objects.batch.create'), 3, 'batches of 100');
});

test('a resumed HubSpot insert: an answered batch is reused, a batch that was being sent is not resent', async (t) => {
  const s = await startStack(t);
  const before = s.hs.portal.records.list('0-1').length;
  const records = Array.from({ length: 150 }, (_, i) => ({ email: `resume-hs-${i}@example.com` }));
  const answered = Array.from({ length: 100 }, (_, i) => [
    i,
    { id: `9${String(i).padStart(5, '0')}`, success: true, errors: [] },
  ]);
  const id = await interruptedJob(
    s,
    'hubspot',
    'insert',
    { objectName: 'contacts', records },
    {
      'hubspot.create.0.0.100': { results: answered },
      'hubspot.create.0.100.50': { state: 'sending' },
    },
  );
  const results = await resultsOf(s, id);
  assert.equal(results[0]?.id, '900000', 'the journaled answer, not a new call');
  assert.ok(results.slice(0, 100).every((r) => r.success));
  for (const r of results.slice(100)) {
    assert.equal(r.success, false);
    assert.equal(r.errors[0]?.statusCode, 'CRM_PROXY_OUTCOME_UNKNOWN');
  }
  assert.equal(s.hs.accounting.count('objects.batch.create'), 0, 'nothing sent again');
  assert.equal(s.hs.portal.records.list('0-1').length, before, 'no record written twice');
});

test('a resumed HubSpot update: a batch that was being sent is sent again (same values)', async (t) => {
  const s = await startStack(t);
  const [a, b] = s.hs.portal.records.list('0-1');
  assert.ok(a && b);
  const id = await interruptedJob(
    s,
    'hubspot',
    'update',
    {
      objectName: 'contacts',
      records: [
        { id: a.id, firstname: 'Resumed-A' },
        { id: b.id, firstname: 'Resumed-B' },
      ],
    },
    { 'hubspot.update.0.0.2': { state: 'sending' } },
  );
  const results = await resultsOf(s, id);
  assert.ok(results.every((r) => r.success));
  assert.equal(s.hs.accounting.count('objects.batch.update'), 1);
  assert.equal(s.hs.portal.records.get('0-1', a.id)?.properties['firstname'], 'Resumed-A');
  assert.equal(s.hs.portal.records.get('0-1', b.id)?.properties['firstname'], 'Resumed-B');
});
