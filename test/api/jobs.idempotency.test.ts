// Idempotency-Key through the HTTP API: every rule, with the sandbox's call accounting proving
// that a replay makes no CRM call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';
import { countWhere, type ErrorBody, injectFaults, type WriteAnswer } from './sf-writes-helpers.ts';

interface Job {
  id: string;
  state: string;
  counts: { total: number; processed: number; succeeded: number; failed: number };
}

const accounts = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ Name: `${prefix}-${i}` }));

test('a keyed insert is answered once; the retry gets the stored answer without a CRM call', async (t) => {
  const s = await startStack(t);
  const body = { data: accounts('Idem-A', 3) };
  const first = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'key-a' },
  });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const jobId = first.headers.get('x-crm-proxy-job-id');
  assert.match(jobId ?? '', /^job_/);
  assert.equal(first.body.data.length, 3);
  assert.ok(first.body.data.every((r) => r.success && r.id !== undefined));

  const before = s.sf.accounting.snapshot().total;
  const again = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'key-a' },
  });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.headers.get('x-crm-proxy-job-id'), jobId);
  assert.equal(again.headers.get('x-crm-proxy-interface'), 'collections');
  assert.deepEqual(again.body, first.body);
  assert.equal(s.sf.accounting.snapshot().total, before, 'a replay calls no CRM');
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-A-'), 3);
});

test('the same key with another request is 422 idempotency_key_reused, without a CRM call', async (t) => {
  const s = await startStack(t);
  const first = await s.api('/v1/object/insert/Account', {
    body: { data: accounts('Idem-B', 2) },
    headers: { 'idempotency-key': 'key-b' },
  });
  assert.equal(first.status, 200);
  const before = s.sf.accounting.snapshot().total;
  const changes: Array<{ path: string; body: unknown; headers: Record<string, string> }> = [
    { path: '/v1/object/insert/Account', body: { data: accounts('Idem-B-other', 2) }, headers: {} },
    { path: '/v1/object/insert/Contact', body: { data: accounts('Idem-B', 2) }, headers: {} },
    {
      path: '/v1/object/insert/Account',
      body: { data: accounts('Idem-B', 2) },
      headers: { 'x-crm-proxy-interface': 'bulk2' },
    },
  ];
  for (const change of changes) {
    const reused = await s.api<ErrorBody>(change.path, {
      body: change.body,
      headers: { 'idempotency-key': 'key-b', ...change.headers },
    });
    assert.equal(reused.status, 422, reused.text);
    assert.equal(reused.body.error.code, 'idempotency_key_reused');
  }
  assert.equal(s.sf.accounting.snapshot().total, before);
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-B-other'), 0);
});

test('keys belong to the API token: another token with the same key runs its own request', async (t) => {
  const s = await startStack(t);
  const other = await s.ctx.auth.createToken({ connectionId: s.connectionIds.salesforce, name: 'second' });
  assert.ok(other.ok);
  const body = { data: accounts('Idem-T', 1) };
  const a = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'k' },
  });
  const b = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    token: other.token,
    body,
    headers: { 'idempotency-key': 'k' },
  });
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  assert.equal(b.headers.get('idempotent-replayed'), null);
  assert.notEqual(a.body.data[0]?.id, b.body.data[0]?.id);
  // The second token cannot see the first one's job either.
  const seen = await s.api(`/v1/jobs/${a.headers.get('x-crm-proxy-job-id')}`, {
    method: 'GET',
    token: other.token,
  });
  assert.equal(seen.status, 404);
});

test('a retry while the first request runs is 409 in progress with Retry-After and the job id; then the answer', async (t) => {
  const s = await startStack(t, { realism: { slowMs: 3000 } });
  // The one Collections call of the first request is held back by the sandbox.
  await injectFaults(s, [{ kind: 'slow', match: 'collections.create', times: 1 }]);
  const body = { data: accounts('Idem-C', 2) };
  const first = s.api<WriteAnswer>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'key-c' },
  });
  let jobId = '';
  await waitFor('the first request to run as a job', async () => {
    const list = await s.api<{ data: Job[] }>('/v1/jobs', { method: 'GET' });
    jobId = list.body.data[0]?.id ?? '';
    return list.body.data[0]?.state === 'running';
  });
  const during = await s.api<ErrorBody>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'key-c' },
  });
  assert.equal(during.status, 409, during.text);
  assert.equal(during.body.error.code, 'idempotency_key_in_progress');
  assert.equal(during.headers.get('retry-after'), '1');
  assert.equal(during.body.error.details[0]?.['job_id'], jobId);
  const answer = await first;
  assert.equal(answer.status, 200);
  const after = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body,
    headers: { 'idempotency-key': 'key-c' },
  });
  assert.equal(after.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(after.body, answer.body);
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-C-'), 2);
});

test('an unusable key is a 400 naming the header; a refused request leaves its key free', async (t) => {
  const s = await startStack(t);
  for (const key of ['x'.repeat(256), 'a\tb']) {
    const bad = await s.api<ErrorBody>('/v1/object/insert/Account', {
      body: { data: accounts('Idem-D', 1) },
      headers: { 'idempotency-key': key },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.code, 'invalid_idempotency_key');
    assert.match(bad.body.error.message, /Idempotency-Key/);
    assert.equal(bad.body.error.details[0]?.['path'], 'header:idempotency-key');
  }
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-D-'), 0);
  // An unknown field is refused inside the job: the key is not kept for that answer.
  const refused = await s.api<ErrorBody>('/v1/object/insert/Account', {
    body: { data: [{ Nmae: 'x' }] },
    headers: { 'idempotency-key': 'key-d' },
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, 'unknown_field');
  const fixed = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Nmae: 'x' }] },
    headers: { 'idempotency-key': 'key-d' },
  });
  assert.equal(fixed.headers.get('idempotent-replayed'), null, 'the refused request was not stored');
});

test('upsert and add custom field with a key: stored answer on retry, no CRM call', async (t) => {
  const s = await startStack(t);
  const upsert = { data: [{ Name: 'Idem-U', Industry: 'Energy' }], match_key: 'Name' };
  const first = await s.api<WriteAnswer>('/v1/object/upsert/Account', {
    body: upsert,
    headers: { 'idempotency-key': 'u-1' },
  });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('x-crm-proxy-upsert-action'), 'insert');
  const before = s.sf.accounting.snapshot().total;
  const again = await s.api<WriteAnswer>('/v1/object/upsert/Account', {
    body: upsert,
    headers: { 'idempotency-key': 'u-1' },
  });
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.headers.get('x-crm-proxy-upsert-action'), 'insert', 'the answer, not a second lookup');
  assert.deepEqual(again.body, first.body);

  const field = { data: { name: 'IdemTier', label: 'Tier', type: 'Text', length: 20 } };
  const created = await s.api('/v1/object/add_custom_field/Account', {
    body: field,
    headers: { 'idempotency-key': 'f-1' },
  });
  assert.equal(created.status, 200, created.text);
  const calls = s.sf.accounting.snapshot().total;
  const replayed = await s.api('/v1/object/add_custom_field/Account', {
    body: field,
    headers: { 'idempotency-key': 'f-1' },
  });
  assert.equal(replayed.status, 200, 'the stored success, not field_already_exists');
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replayed.body, created.body);
  assert.equal(s.sf.accounting.snapshot().total, calls);
  assert.ok(calls > before);
});

test('a keyed write whose instance died before storing its answer is 409 idempotency_key_outcome_unknown', async (t) => {
  const s = await startStack(t);
  const upsert = { data: [{ Name: 'Idem-X' }], match_key: 'Name' };
  // What a crash mid-upsert leaves: the key in progress, its lease run out, no job behind it.
  const probe = await s.api('/v1/object/upsert/Account', {
    body: upsert,
    headers: { 'idempotency-key': 'x-probe' },
  });
  assert.equal(probe.status, 200);
  const { requestHash } = await import('../../src/jobs/idempotency.ts');
  const token = await s.ctx.auth.verify(`Bearer ${s.tokens.salesforce}`);
  assert.ok(token.ok);
  const hash = requestHash({
    method: 'POST',
    path: '/v1/object/upsert/Account',
    body: upsert,
    headers: { 'x-crm-proxy-interface': undefined, prefer: undefined },
  });
  await s.store.idempotency.claim({
    tokenId: token.token.id,
    key: 'x-1',
    requestHash: hash,
    jobId: null,
    leaseUntil: new Date(Date.now() - 1000).toISOString(),
    now: new Date().toISOString(),
  });
  const before = s.sf.accounting.snapshot().total;
  const retry = await s.api<ErrorBody>('/v1/object/upsert/Account', {
    body: upsert,
    headers: { 'idempotency-key': 'x-1' },
  });
  assert.equal(retry.status, 409, retry.text);
  assert.equal(retry.body.error.code, 'idempotency_key_outcome_unknown');
  assert.match(retry.body.error.message, /may or may not/);
  assert.match(retry.body.error.message, /new key/);
  assert.equal(s.sf.accounting.snapshot().total, before);
});

test('a client that disconnects mid-request: the write completes, and its retry with the key gets the ids', async (t) => {
  const s = await startStack(t, { realism: { latencyMs: 100 } });
  const body = { data: accounts('Idem-Gone', 1000) };
  const controller = new AbortController();
  const gone = fetch(`${s.baseUrl}/v1/object/insert/Account`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.tokens.salesforce}`,
      'content-type': 'application/json',
      'idempotency-key': 'gone-1',
    },
    body: JSON.stringify(body),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  await waitFor('the job to be under way', async () => {
    const list = await s.api<{ data: Job[] }>('/v1/jobs', { method: 'GET' });
    return list.body.data[0]?.state === 'running';
  });
  controller.abort();
  assert.ok((await gone) instanceof Error, 'the client gave up');

  let final: Awaited<ReturnType<typeof s.api<WriteAnswer>>> | undefined;
  await waitFor('the retry to get the answer', async () => {
    const retry = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      body,
      headers: { 'idempotency-key': 'gone-1' },
    });
    if (retry.status === 409) return false;
    final = retry;
    return true;
  });
  assert.equal(final?.status, 200, final?.text);
  assert.equal(final?.headers.get('idempotent-replayed'), 'true');
  assert.equal(final?.body.data.length, 1000);
  assert.ok(final?.body.data.every((r) => r.success && typeof r.id === 'string'));
  assert.equal(new Set(final?.body.data.map((r) => r.id)).size, 1000);
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-Gone-'), 1000, 'each record written once');
});

test('pass-through POST with a key: the CRM’s answer is stored and replayed without a CRM call', async (t) => {
  const s = await startStack(t);
  const path = '/v1/proxy/services/data/v62.0/sobjects/Account';
  const first = await s.api<{ id: string; success: boolean }>(path, {
    body: { Name: 'Idem-PT' },
    headers: { 'idempotency-key': 'pt-1' },
  });
  assert.equal(first.status, 201, first.text);
  assert.ok(first.body.success);
  const before = s.sf.accounting.snapshot().total;
  const again = await s.api<{ id: string }>(path, {
    body: { Name: 'Idem-PT' },
    headers: { 'idempotency-key': 'pt-1' },
  });
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
  assert.equal(again.body.id, first.body.id);
  const reused = await s.api<ErrorBody>(path, {
    body: { Name: 'Idem-PT-2' },
    headers: { 'idempotency-key': 'pt-1' },
  });
  assert.equal(reused.status, 422);
  assert.equal(reused.body.error.code, 'idempotency_key_reused');
  assert.equal(s.sf.accounting.snapshot().total, before);
  assert.equal(countWhere(s, 'Account', 'Name', 'Idem-PT'), 1);
});
