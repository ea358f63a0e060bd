import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { countWhere, type ErrorBody, injectFaults, stored, type WriteAnswer } from './sf-writes-helpers.ts';

type Stack = Awaited<ReturnType<typeof startStack>>;

const records = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ Name: `${prefix} ${i}` }));

/** Every success is stored exactly once under its own name; nothing reported failed was stored. */
function assertNoLossNoDoubles(s: Stack, prefix: string, answer: WriteAnswer): void {
  const ok = answer.data.filter((r) => r.success);
  assert.equal(countWhere(s, 'Account', 'Name', `${prefix} `), ok.length);
  answer.data.forEach((r, i) => {
    if (r.success) assert.equal(stored(s, r.id)?.['Name'], `${prefix} ${i}`);
  });
}

test('collections: a 5xx and a dropped call are not resent; their records fail clearly, the others are written once', async (t) => {
  const s = await startStack(t, { env: { CRM_PROXY_CONNECTION_CONCURRENCY: '1' } });
  await injectFaults(s, [
    { kind: 'error503', match: 'collections.create', times: 1, skip: 1 },
    { kind: 'drop', match: 'collections.create', times: 1, skip: 1 },
  ]);
  s.sf.accounting.reset();
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: records('F', 1000) },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(s.sf.accounting.count('collections.create'), 5);
  const failed = answer.body.data.flatMap((r, i) => (r.success ? [] : [i]));
  assert.equal(failed.length, 400);
  const codes = new Set(answer.body.data.filter((r) => !r.success).map((r) => r.errors[0]?.statusCode));
  assert.deepEqual([...codes].sort(), ['CRM_PROXY_OUTCOME_UNKNOWN', 'SERVER_UNAVAILABLE']);
  assertNoLossNoDoubles(s, 'F', answer.body);
});

test('collections: a token expiring mid-request is refreshed and the call resent once; every record written once', async (t) => {
  const s = await startStack(t);
  await injectFaults(s, [{ kind: 'expireToken', match: 'collections.create', times: 1, skip: 2 }]);
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: records('T', 1000) },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data.filter((r) => r.success).length, 1000);
  assertNoLossNoDoubles(s, 'T', answer.body);
});

test('UNABLE_TO_LOCK_ROW: only the locked records are sent again', async (t) => {
  const s = await startStack(t);
  await injectFaults(s, [{ kind: 'lock', match: 'collections.create', times: 1 }]);
  s.sf.accounting.reset();
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', { body: { data: records('L', 600) } });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data.filter((r) => r.success).length, 600);
  // 3 calls, then one more for the 200 locked records.
  assert.equal(s.sf.accounting.count('collections.create'), 4);
  assertNoLossNoDoubles(s, 'L', answer.body);
});

test('bulk: a dropped upload aborts the job (nothing written); an expired token, a dropped close or poll are recovered; a locked job is retried', async (t) => {
  const s = await startStack(t);
  await injectFaults(s, [{ kind: 'drop', match: 'bulk2.upload', times: 1 }]);
  const dropped = await s.api<WriteAnswer | ErrorBody>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: records('BU', 300) },
  });
  assert.equal(dropped.status, 502, dropped.text.slice(0, 300));
  assert.equal(countWhere(s, 'Account', 'Name', 'BU '), 0);

  await injectFaults(s, [
    { kind: 'expireToken', match: 'bulk2.upload', times: 1 },
    { kind: 'drop', match: 'bulk2.close', times: 1 },
    { kind: 'drop', match: 'bulk2.getJob', times: 1 },
    { kind: 'error503', match: 'bulk2.successfulResults', times: 1 },
  ]);
  const polled = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: records('BP', 300) },
  });
  assert.equal(polled.status, 200, polled.text.slice(0, 300));
  assert.equal(polled.body.data.filter((r) => r.success).length, 300);
  assertNoLossNoDoubles(s, 'BP', polled.body);

  await injectFaults(s, [{ kind: 'lock', match: 'bulk2.close', times: 1 }]);
  const locked = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: records('BL', 300) },
  });
  assert.equal(locked.status, 200, locked.text.slice(0, 300));
  assert.equal(locked.body.data.filter((r) => r.success).length, 300);
  assertNoLossNoDoubles(s, 'BL', locked.body);
});

test('REQUEST_LIMIT_EXCEEDED is a 502 carrying Salesforce’s error', async (t) => {
  const s = await startStack(t);
  await injectFaults(s, [{ kind: 'rateLimit', match: 'collections.create', times: 1 }]);
  const answer = await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: records('RL', 5) } });
  assert.equal(answer.status, 502, answer.text);
  assert.equal(answer.body.error.code, 'crm_error');
  const crm = answer.body.error.details[0]?.['crm_error'] as Array<{ errorCode: string }>;
  assert.equal(crm[0]?.errorCode, 'REQUEST_LIMIT_EXCEEDED');
  assert.equal(countWhere(s, 'Account', 'Name', 'RL '), 0);
});
