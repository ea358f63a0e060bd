import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { type ApiAnswer, startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
  request_id: string;
}

function assertError(answer: ApiAnswer<ErrorBody>, status: number, code: string): ErrorBody['error'] {
  assert.equal(answer.status, status, answer.text);
  assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'request_id']);
  assert.deepEqual(Object.keys(answer.body.error).sort(), ['code', 'details', 'message']);
  assert.equal(answer.body.error.code, code);
  assert.equal(answer.headers.get('x-request-id'), answer.body.request_id);
  return answer.body.error;
}

test('malformed JSON, an empty body where one is needed, and a non-JSON content type', async (t) => {
  const s = await startStack(t);
  const get = '/v1/object/get/Account';
  const json = { 'content-type': 'application/json' };
  assertError(
    await s.api<ErrorBody>(get, { rawBody: '{"data": {"ids": [', headers: json }),
    400,
    'invalid_json',
  );
  const empty = assertError(await s.api<ErrorBody>(get, { rawBody: '', headers: json }), 400, 'invalid_body');
  assert.match(empty.message, /body/);
  assertError(
    await s.api<ErrorBody>(get, {
      rawBody: 'ids=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    415,
    'unsupported_media_type',
  );
  assertError(
    await s.api<ErrorBody>(get, { rawBody: '{}', headers: { 'content-type': 'text/plain' } }),
    415,
    'unsupported_media_type',
  );
});

test('an invalid body names every failing field with its path', async (t) => {
  const s = await startStack(t);
  const error = assertError(
    await s.api<ErrorBody>('/v1/object/get/Account', {
      body: { data: { ids: [1, '001000000000000AAA', ''], field: ['Name'] }, extra: true },
    }),
    400,
    'invalid_body',
  );
  const paths = error.details.map((d) => d['path']).sort();
  assert.deepEqual(paths, ['/data/field', '/data/ids/0', '/data/ids/2', '/extra']);
  assert.match(error.message, /\/data\/ids\/0 must be of type string/);
  assert.match(error.message, /\/extra is not a known property; remove it/);
  const missing = assertError(
    await s.api<ErrorBody>('/v1/object/upsert/Account', { body: { data: [{ Name: 'x' }] } }),
    400,
    'invalid_body',
  );
  assert.deepEqual(missing.details, [{ path: '/match_key', message: 'is required' }]);
  const update = assertError(
    await s.api<ErrorBody>('/v1/object/update/Account', { body: { data: [{ Name: 'x' }] } }),
    400,
    'invalid_body',
  );
  assert.deepEqual(update.details, [{ path: '/data/0/id', message: 'is required' }]);
  const soql = assertError(await s.api<ErrorBody>('/v1/object/soql', { body: {} }), 400, 'invalid_body');
  assert.match(soql.message, /either "data"/);
  assertError(await s.api<ErrorBody>('/v1/describe', { body: { data: 1 } }), 400, 'invalid_body');
});

test('wrong method: 405 with Allow; unknown route: 404; both with the error body', async (t) => {
  const s = await startStack(t);
  for (const path of ['/v1/object/get/Account', '/v1/describe', '/v1/object/delete', '/v1/object/soql']) {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await s.api<ErrorBody>(path, { method });
      assertError(answer, 405, 'method_not_allowed');
      assert.equal(answer.headers.get('allow'), 'POST');
    }
  }
  assertError(await s.api<ErrorBody>('/v1/object/frobnicate/Account', { body: {} }), 404, 'not_found');
  assertError(await s.api<ErrorBody>('/v2/describe'), 404, 'not_found');
  assertError(await s.api<ErrorBody>('/v1', { method: 'GET', token: null }), 404, 'not_found');
});

test('unknown objects are 404 and malformed object names 400, before any record call', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const unknown = assertError(await s.api<ErrorBody>('/v1/describe/NoSuchThing__c'), 404, 'unknown_object');
  assert.match(unknown.message, /NoSuchThing__c/);
  assertError(
    await s.api<ErrorBody>('/v1/object/get/NoSuchThing__c', {
      body: { data: { ids: ['001000000000000AAA'] } },
    }),
    404,
    'unknown_object',
  );
  for (const name of ['Acc%20ount', '1Account', 'a'.repeat(81), 'Account%2F..', '0-1']) {
    const answer = await s.api<ErrorBody>(`/v1/object/get/${name}`, {
      body: { data: { ids: ['001000000000000AAA'] } },
    });
    assertError(answer, 400, 'invalid_object_name');
  }
  assert.equal(s.sf.accounting.count('collections'), 0);
});

test('a body over the limit is 413; the default limit is sized for 10 000 records', async (t) => {
  assert.equal(loadConfig({}).capacity.bodyLimitBytes, 8 * 1024 * 1024);
  const s = await startStack(t, { env: { CRM_PROXY_BODY_LIMIT_BYTES: '100000' } });
  const records = Array.from({ length: 1000 }, (_, i) => ({
    Name: `Account ${i}`,
    Description: 'x'.repeat(100),
  }));
  const error = assertError(
    await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: records } }),
    413,
    'body_too_large',
  );
  assert.deepEqual(error.details, [{ limit_bytes: 100_000 }]);
});

test('HubSpot connections get 422 naming what HubSpot offers, for the Salesforce-only operation (SOQL)', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;
  const calls: Array<[string, unknown]> = [['/v1/object/soql', { data: 'SELECT Id FROM Contact' }]];
  const offered = [
    'insert',
    'upsert',
    'update',
    'delete',
    'get',
    'search',
    'describe',
    'add_custom_field',
    'associations',
    'associate',
    'dissociate',
    'audit_logs',
    'passthrough',
  ];
  for (const [path, body] of calls) {
    const error = assertError(await s.api<ErrorBody>(path, { token, body }), 422, 'operation_not_available');
    assert.match(
      error.message,
      /HubSpot offers: insert, upsert, update, delete, get, query \(search\), describe, add_custom_field, associations, associate, dissociate, audit_logs, pass-through/,
    );
    assert.deepEqual(error.details[0]?.['available_operations'], offered);
  }
  assert.equal(s.hs.accounting.snapshot().total, 0);
});

test("the service's own rate limit answers 429 with Retry-After, per API token", async (t) => {
  // Service time stands still: the bucket does not refill between the calls, however slow the machine.
  const now = Date.now();
  const s = await startStack(t, {
    env: { CRM_PROXY_RATE_LIMIT_PER_SECOND: '1', CRM_PROXY_RATE_LIMIT_BURST: '2' },
    overrides: { clock: { now: () => now } },
  });
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.equal((await s.api('/v1/describe')).status, 200);
  const limited = await s.api<ErrorBody>('/v1/describe');
  assertError(limited, 429, 'rate_limited');
  assert.equal(limited.headers.get('retry-after'), '1');
  // Another token has its own bucket.
  const other = await s.api('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: ['1'] } },
  });
  assert.notEqual(other.status, 429);
});
