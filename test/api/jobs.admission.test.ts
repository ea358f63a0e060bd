// A connection's jobs beyond CRM_PROXY_JOB_RECORDS_IN_FLIGHT wait their turn: queued, under this
// instance's lease, started in order once earlier ones end; every record written once; a job
// cancelled while it waits sends nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followJob } from '../helpers/jobs.ts';
import { type Stack, startStack } from '../helpers/stack.ts';
import { countWhere, type RecordResult, type WriteAnswer } from './sf-writes-helpers.ts';

interface Job {
  id: string;
  state: string;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  started_at: string | null;
  finished_at: string | null;
}

const accounts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ Name: `${prefix}-${i}` }));

async function finished(s: Stack, id: string): Promise<Job> {
  return (await followJob<Job>(s, id)).job;
}

async function results(s: Stack, id: string): Promise<RecordResult[]> {
  const page = await s.api<{ data: RecordResult[] }>(`/v1/jobs/${id}/results?limit=10000`, { method: 'GET' });
  assert.equal(page.status, 200, page.text);
  return page.body.data;
}

test('jobs beyond the records in flight wait their turn and run one after another; each record is written once', async (t) => {
  // 250-record jobs against a room of 300 records: one at a time.
  const s = await startStack(t, {
    env: { CRM_PROXY_JOB_RECORDS_IN_FLIGHT: '300' },
    realism: { perRecordMs: 1 },
  });
  const asyncIds: string[] = [];
  for (let k = 0; k < 3; k++) {
    const accepted = await s.api<Job>('/v1/object/insert/Account', {
      body: { data: accounts(`Turn-a${k}`, 250) },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(accepted.status, 202, accepted.text);
    asyncIds.push(accepted.body.id);
  }
  // Synchronous requests behind them wait too, and answer as usual.
  const answers = await Promise.all(
    [0, 1].map((k) =>
      s.api<WriteAnswer>('/v1/object/insert/Account', { body: { data: accounts(`Turn-s${k}`, 250) } }),
    ),
  );
  for (const answer of answers) {
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.length, 250);
    assert.ok(answer.body.data.every((r) => r.success && typeof r.id === 'string'));
  }
  const syncIds = answers.map((a) => a.headers.get('x-crm-proxy-job-id') ?? '');
  const jobs = await Promise.all([...asyncIds, ...syncIds].map((id) => finished(s, id)));
  for (const job of jobs) {
    assert.equal(job.state, 'completed');
    assert.equal(job.counts.succeeded, 250);
  }
  // Never two at once: in the order they started, each started once the one before had ended.
  const byStart = [...jobs].sort((a, b) => String(a.started_at).localeCompare(String(b.started_at)));
  for (let k = 1; k < byStart.length; k++) {
    assert.ok(
      String(byStart[k]?.started_at) >= String(byStart[k - 1]?.finished_at),
      `job ${k} started ${byStart[k]?.started_at}, before the previous ended ${byStart[k - 1]?.finished_at}`,
    );
  }
  // The async ones, submitted in turn, ran in that order.
  assert.deepEqual(
    byStart.map((j) => j.id).filter((id) => asyncIds.includes(id)),
    asyncIds,
  );
  assert.equal(countWhere(s, 'Account', 'Name', 'Turn-'), 5 * 250);
  const created = new Set<string>();
  for (const id of asyncIds) for (const r of await results(s, id)) created.add(String(r.id));
  for (const answer of answers) for (const r of answer.body.data) created.add(String(r.id));
  assert.equal(created.size, 5 * 250, 'one record per input record');
});

test('a job cancelled while it waits its turn ends cancelled without sending anything', async (t) => {
  // 200 records at 20 ms each: the first job's call keeps it running for seconds.
  const s = await startStack(t, {
    env: { CRM_PROXY_JOB_RECORDS_IN_FLIGHT: '300' },
    realism: { perRecordMs: 20 },
  });
  const first = await s.api<Job>('/v1/object/insert/Account', {
    body: { data: accounts('Ahead', 250) },
    headers: { prefer: 'respond-async' },
  });
  const second = await s.api<Job>('/v1/object/insert/Account', {
    body: { data: accounts('Waiting', 250) },
    headers: { prefer: 'respond-async' },
  });
  assert.equal(second.status, 202, second.text);
  const waiting = await s.api<Job>(`/v1/jobs/${second.body.id}`, { method: 'GET' });
  assert.equal(waiting.body.state, 'queued', 'waits while the first one runs');
  assert.equal(waiting.body.started_at, null);
  const cancel = await s.api<Job>(`/v1/jobs/${second.body.id}`, { method: 'DELETE' });
  assert.equal(cancel.status, 202, cancel.text);
  const cancelled = await finished(s, second.body.id);
  assert.equal(cancelled.state, 'cancelled');
  const answered = await results(s, second.body.id);
  assert.equal(answered.length, 250);
  assert.ok(answered.every((r) => r.errors[0]?.statusCode === 'CRM_PROXY_CANCELLED'));
  assert.equal(countWhere(s, 'Account', 'Name', 'Waiting-'), 0, 'nothing of the cancelled job was sent');
  const ahead = await finished(s, first.body.id);
  assert.equal(ahead.state, 'completed');
  assert.equal(countWhere(s, 'Account', 'Name', 'Ahead-'), 250);
});

test('a Bulk job gives its turn back while Salesforce processes it, and takes it back to read the results', async (t) => {
  // Room for one 300-record job at a time; each call takes 40 ms, so every step of a job is visible.
  const s = await startStack(t, {
    env: { CRM_PROXY_JOB_RECORDS_IN_FLIGHT: '300' },
    realism: { latencyMs: 40 },
  });
  const ids: string[] = [];
  for (const prefix of ['BulkTurn-a', 'BulkTurn-b']) {
    const accepted = await s.api<Job>('/v1/object/insert/Account', {
      body: { data: accounts(prefix, 300) },
      headers: { prefer: 'respond-async', 'x-crm-proxy-interface': 'bulk2' },
    });
    assert.equal(accepted.status, 202, accepted.text);
    ids.push(accepted.body.id);
  }
  const [first, second] = await Promise.all(ids.map((id) => finished(s, id)));
  assert.equal(first?.state, 'completed');
  assert.equal(second?.state, 'completed');
  // The second started while the first waited on Salesforce, before the first had ended.
  assert.ok(
    String(second?.started_at) < String(first?.finished_at),
    `the second started ${second?.started_at}, the first ended ${first?.finished_at}`,
  );
  for (const id of ids) {
    const answered = await results(s, id);
    assert.equal(answered.length, 300);
    assert.ok(answered.every((r) => r.success && typeof r.id === 'string'));
  }
  assert.equal(countWhere(s, 'Account', 'Name', 'BulkTurn-'), 600, 'each record written once');
});
