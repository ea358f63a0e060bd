// jsforce's test/http-api.test.ts (39 tests) is a unit test of jsforce's HTTP layer: its internal
// HttpApi, Transport and SOAP classes answered by a mock HTTP agent, no org. The 7 below whose intent
// a live server can show are mirrored through the public Connection against the sandbox (its fault
// injection stands in for the mock's canned 503s). Not mirrored, being about jsforce internals or
// answers no Salesforce org gives on demand: socket-error, method, error-code, 420, cancel and timeout
// retries (8), retry limit with a body (1), request-header events (4), the REST-API-invalid and
// BlackTab 401s (2), refresh-budget counters (5), XML / HTML / multi-error bodies (3), SOAP (7).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsforce from 'jsforce';
import { connectTo } from '../jsforce-helpers.ts';
import { useSandbox } from '../rest-helpers.ts';

const { sf, fault } = useSandbox();
const conn = () => connectTo(sf());
/** A connection on a bad token whose refreshFn counts calls and hands back `token()` (or fails). */
function expiredConnection(token: () => string | Error) {
  const state = { refreshes: 0 };
  const c = new jsforce.Connection({
    instanceUrl: sf().url,
    accessToken: 'stale-session',
    version: '62.0',
    refreshFn: (_c, cb) => {
      state.refreshes += 1;
      const t = token();
      if (t instanceof Error) cb(t);
      else setTimeout(() => cb(null, t), 20);
    },
  });
  return { c, state };
}

test('a GET answered 503 twice is retried until it succeeds', async () => {
  await fault('error503', 'rest.query', 2);
  const before = sf().accounting.count('rest.query');
  const res = await conn().query('SELECT Id FROM Account LIMIT 1');
  assert.equal(res.records.length, 1);
  assert.equal(sf().accounting.count('rest.query') - before, 3);
});

test('a 404 is not retried', async () => {
  const before = sf().accounting.count('rest.sobject.get');
  await assert.rejects(async () => conn().sobject('Account').retrieve('001000000000000AAA'), {
    errorCode: 'NOT_FOUND',
  });
  assert.equal(sf().accounting.count('rest.sobject.get') - before, 1);
});

test('a 401 on an expired session calls refreshFn and retries with the new token', async () => {
  const { c, state } = expiredConnection(() => sf().credentials.accessToken);
  const res = await c.request<{ sobjects: unknown[] }>('/services/data/v62.0/sobjects');
  assert.ok(Array.isArray(res.sobjects));
  assert.equal(state.refreshes, 1);
  assert.equal(c.accessToken, sf().credentials.accessToken);
});

test('a refreshFn that fails ends the call after one refresh attempt', async () => {
  const { c, state } = expiredConnection(() => new Error('token service down'));
  await assert.rejects(async () => c.request('/services/data/v62.0/sobjects'));
  assert.equal(state.refreshes, 1);
});

test('three concurrent 401s share one refresh', async () => {
  const { c, state } = expiredConnection(() => sf().credentials.accessToken);
  const res = await Promise.all([
    c.request('/services/data/v62.0/limits'),
    c.request('/services/data/v62.0/sobjects'),
    c.request('/services/data/v62.0/'),
  ]);
  assert.equal(res.length, 3);
  assert.equal(state.refreshes, 1);
});

test('a JSON error body becomes errorCode, message and content', async () => {
  await assert.rejects(
    async () =>
      conn().request({
        method: 'POST',
        url: '/services/data/v62.0/sobjects/Account',
        body: JSON.stringify({ Description: 'no name' }),
        headers: { 'content-type': 'application/json' },
      }),
    (e: Error & { errorCode?: string; content?: { fields?: string[] } }) =>
      e.errorCode === 'REQUIRED_FIELD_MISSING' &&
      /Required fields are missing: \[Name\]/.test(e.message) &&
      e.content?.fields?.[0] === 'Name',
  );
});

test('a 204 answer gives the no-content result jsforce builds (destroy)', async () => {
  const made = await conn().sobject('Account').create({ Name: 'Gone Tomorrow Ltd' });
  const res = await conn()
    .sobject('Account')
    .destroy(made.id as string);
  assert.deepEqual(res, { id: made.id, success: true, errors: [] });
});
