// Async jobs through the HTTP API: Prefer: respond-async, progress, results paging, cancel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followJob } from '../helpers/jobs.ts';
import { type ApiAnswer, type Stack, startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';
import { countWhere, type ErrorBody, type RecordResult, type WriteAnswer } from './sf-writes-helpers.ts';

interface Job {
  id: string;
  state: string;
  interface: string | null;
  operation: string;
  object: string | null;
  counts: { total: number; processed: number; succeeded: number; failed: number };
  crm_job_ids: string[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  results_url: string;
}

/** 10 000 accounts; every 1000th has no Name, which Salesforce refuses (a per-record failure). */
const records = (prefix: string) =>
  Array.from({ length: 10_000 }, (_, i) =>
    i % 1000 === 999 ? { Industry: 'Energy' } : { Name: `${prefix}-${i}` },
  );

const follow = (s: Stack, id: string) => followJob<Job>(s, id);

async function allResults(
  s: Stack,
  id: string,
  limit: number,
): Promise<{ results: RecordResult[]; pages: number }> {
  const results: RecordResult[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { status: number; body: { data: RecordResult[]; next_cursor: string | null }; text: string } =
      await s.api(`/v1/jobs/${id}/results?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`, {
        method: 'GET',
      });
    assert.equal(page.status, 200, page.text);
    results.push(...page.body.data);
    cursor = page.body.next_cursor;
    pages += 1;
  } while (cursor !== null);
  return { results, pages };
}

const shape = (r: RecordResult) => ({
  created: typeof r.id === 'string',
  success: r.success,
  errors: r.errors,
});

for (const via of ['collections', 'bulk2'] as const) {
  test(`async 10 000-record insert on ${via}: 202 at once, progress moves, results equal the synchronous answer`, async (t) => {
    // Slow enough that the job is seen mid-way: per record in the sandbox, never a timed assertion.
    const s = await startStack(t, { realism: { perRecordMs: via === 'bulk2' ? 0.5 : 1 } });
    const accepted = await s.api<Job>('/v1/object/insert/Account', {
      body: { data: records(`Async-${via}`) },
      headers: { prefer: 'respond-async', 'x-crm-proxy-interface': via },
    });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.headers.get('location'), `/v1/jobs/${accepted.body.id}`);
    assert.equal(accepted.headers.get('preference-applied'), 'respond-async');
    assert.equal(accepted.body.counts.total, 10_000);
    assert.equal(accepted.body.operation, 'insert');
    assert.equal(accepted.body.object, 'Account');

    const { job, seen } = await follow(s, accepted.body.id);
    assert.equal(job.state, 'completed');
    assert.equal(job.interface, via);
    assert.deepEqual(job.counts, { total: 10_000, processed: 10_000, succeeded: 9_990, failed: 10 });
    assert.ok(job.started_at !== null && job.finished_at !== null);
    assert.ok(
      seen.some((p) => p > 0 && p < 10_000),
      `progress seen mid-way: ${[...new Set(seen)].join(',')}`,
    );
    for (let i = 1; i < seen.length; i++)
      assert.ok((seen[i] ?? 0) >= (seen[i - 1] ?? 0), 'progress never goes back');
    if (via === 'bulk2') assert.equal(job.crm_job_ids.length, 1);
    else assert.deepEqual(job.crm_job_ids, []);

    const { results, pages } = await allResults(s, job.id, 3000);
    assert.equal(pages, 4);
    assert.equal(results.length, 10_000);
    assert.equal(countWhere(s, 'Account', 'Name', `Async-${via}-`), 9_990);

    s.sf.realism.update({ perRecordMs: 0 });
    const sync = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      body: { data: records(`Async-${via}`) },
      headers: { 'x-crm-proxy-interface': via },
    });
    assert.equal(sync.status, 200);
    assert.match(
      sync.headers.get('x-crm-proxy-job-id') ?? '',
      /^job_/,
      'a long synchronous write names its job',
    );
    assert.deepEqual(results.map(shape), sync.body.data.map(shape));
    assert.equal(results[999]?.errors[0]?.statusCode, 'REQUIRED_FIELD_MISSING');
  });
}

test('results page with a cursor; a bad cursor is a 400; an unfinished job has no results yet', async (t) => {
  const s = await startStack(t, { realism: { latencyMs: 300 } });
  const accepted = await s.api<Job>('/v1/object/insert/Account', {
    body: { data: Array.from({ length: 450 }, (_, i) => ({ Name: `Page-${i}` })) },
    headers: { prefer: 'respond-async' },
  });
  assert.equal(accepted.status, 202);
  const early = await s.api<ErrorBody>(`/v1/jobs/${accepted.body.id}/results`, { method: 'GET' });
  assert.equal(early.status, 409);
  assert.equal(early.body.error.code, 'job_not_finished');
  await follow(s, accepted.body.id);
  const { results, pages } = await allResults(s, accepted.body.id, 100);
  assert.equal(pages, 5);
  assert.equal(results.length, 450);
  assert.ok(results.every((r) => r.success));
  const stored = results.map((r) => s.sf.org.get(r.id ?? '')?.record['Name']);
  assert.deepEqual(
    stored,
    Array.from({ length: 450 }, (_, i) => `Page-${i}`),
    'input order',
  );
  const bad = await s.api<ErrorBody>(`/v1/jobs/${accepted.body.id}/results?cursor=nope`, { method: 'GET' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_cursor');
});

test('GET /v1/jobs lists the token’s own jobs, newest first, paged; another token sees none of them', async (t) => {
  const s = await startStack(t);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const a = await s.api<Job>('/v1/object/insert/Account', {
      body: { data: [{ Name: `List-${i}` }] },
      headers: { prefer: 'respond-async' },
    });
    ids.push(a.body.id);
    await follow(s, a.body.id);
  }
  const first = await s.api<{ data: Job[]; next_cursor: string | null }>('/v1/jobs?limit=2', {
    method: 'GET',
  });
  assert.deepEqual(
    first.body.data.map((j) => j.id),
    [ids[2], ids[1]],
  );
  const second = await s.api<{ data: Job[]; next_cursor: string | null }>(
    `/v1/jobs?limit=2&cursor=${first.body.next_cursor}`,
    { method: 'GET' },
  );
  assert.deepEqual(
    second.body.data.map((j) => j.id),
    [ids[0]],
  );
  assert.equal(second.body.next_cursor, null);

  const other = await s.ctx.auth.createToken({ connectionId: s.connectionIds.salesforce, name: 'other' });
  assert.ok(other.ok);
  const theirs = await s.api<{ data: Job[] }>('/v1/jobs', { method: 'GET', token: other.token });
  assert.deepEqual(theirs.body.data, []);
  for (const [method, path] of [
    ['GET', `/v1/jobs/${ids[0]}`],
    ['GET', `/v1/jobs/${ids[0]}/results`],
    ['DELETE', `/v1/jobs/${ids[0]}`],
  ] as const) {
    const hidden: ApiAnswer<ErrorBody> = await s.api<ErrorBody>(path, { method, token: other.token });
    assert.equal(hidden.status, 404, `${method} ${path}`);
    assert.equal(hidden.body.error.code, 'job_not_found');
  }
});

test('DELETE cancels what has not been sent: those records end CRM_PROXY_CANCELLED, the rest are written once', async (t) => {
  const s = await startStack(t, { realism: { perRecordMs: 2 } });
  const accepted = await s.api<Job>('/v1/object/insert/Account', {
    body: { data: Array.from({ length: 10_000 }, (_, i) => ({ Name: `Cancel-${i}` })) },
    headers: { prefer: 'respond-async', 'x-crm-proxy-interface': 'collections' },
  });
  await waitFor('the first calls to be answered', async () => {
    const job = await s.api<Job>(`/v1/jobs/${accepted.body.id}`, { method: 'GET' });
    return job.body.counts.processed > 0;
  });
  const cancel = await s.api<Job>(`/v1/jobs/${accepted.body.id}`, { method: 'DELETE' });
  assert.equal(cancel.status, 202, cancel.text);
  const { job } = await follow(s, accepted.body.id);
  assert.equal(job.state, 'cancelled');
  const { results } = await allResults(s, job.id, 10_000);
  const written = results.filter((r) => r.success);
  const cancelled = results.filter((r) => r.errors[0]?.statusCode === 'CRM_PROXY_CANCELLED');
  assert.equal(written.length + cancelled.length, 10_000);
  assert.ok(cancelled.length > 0 && written.length > 0);
  assert.equal(countWhere(s, 'Account', 'Name', 'Cancel-'), written.length, 'nothing cancelled was written');
  assert.equal(job.counts.succeeded, written.length);
  // A finished job is answered as it is.
  const again = await s.api<Job>(`/v1/jobs/${job.id}`, { method: 'DELETE' });
  assert.equal(again.status, 200);
  assert.equal(again.body.state, 'cancelled');
});
