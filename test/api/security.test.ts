import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateToken } from '../../src/auth/token-format.ts';
import { type ApiAnswer, startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: unknown[] };
  request_id: string;
}

/** Every /v1 route with a body that would be valid, so only the token decides the answer. */
const ROUTES: Array<{ method: string; path: string; body?: unknown }> = [
  { method: 'POST', path: '/v1/object/insert/Account', body: { data: [{ Name: 'x' }] } },
  { method: 'POST', path: '/v1/object/upsert/Account', body: { data: [{ Name: 'x' }], match_key: 'Id' } },
  {
    method: 'POST',
    path: '/v1/object/update/Account',
    body: { data: [{ id: '001000000000000AAA', Name: 'x' }] },
  },
  { method: 'POST', path: '/v1/object/delete', body: { data: { ids: ['001000000000000AAA'] } } },
  { method: 'POST', path: '/v1/object/get/Account', body: { data: { ids: ['001000000000000AAA'] } } },
  { method: 'POST', path: '/v1/object/soql', body: { data: 'SELECT Id FROM Account' } },
  { method: 'POST', path: '/v1/describe' },
  { method: 'POST', path: '/v1/describe/Account' },
  {
    method: 'POST',
    path: '/v1/object/add_custom_field/Account',
    body: { data: { name: 'X', label: 'X', type: 'Text', length: 10 } },
  },
  { method: 'GET', path: '/v1/proxy/services/data/v62.0/limits' },
  { method: 'DELETE', path: '/v1/proxy/services/data/v62.0/sobjects/Account/001000000000000AAA' },
];

function assertError(answer: ApiAnswer<ErrorBody>, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.body.error.code, code);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.ok(answer.body.error.message.length > 10);
  assert.ok(Array.isArray(answer.body.error.details));
  assert.equal(answer.headers.get('x-request-id'), answer.body.request_id);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
}

test('every /v1 route refuses a missing, malformed, unknown or other-region token, before any CRM call', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const otherRegion = generateToken('us').token;
  const unknown = generateToken('eu').token;
  for (const route of ROUTES) {
    const call = { method: route.method, body: route.body };
    const missing = await s.api<ErrorBody>(route.path, { ...call, token: null });
    assertError(missing, 401, 'missing_token');
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
    assertError(
      await s.api<ErrorBody>(route.path, { ...call, token: 'not-a-token' }),
      401,
      'malformed_token',
    );
    assertError(
      await s.api<ErrorBody>(route.path, {
        ...call,
        headers: { authorization: `Basic ${s.tokens.salesforce}` },
        token: null,
      }),
      401,
      'malformed_token',
    );
    assertError(await s.api<ErrorBody>(route.path, { ...call, token: unknown }), 401, 'unknown_token');
    const wrong = await s.api<ErrorBody>(route.path, { ...call, token: otherRegion });
    assertError(wrong, 403, 'wrong_region');
    assert.match(wrong.body.error.message, /https:\/\/us\.crm-proxy\.test/);
  }
  assert.equal(s.sf.accounting.snapshot().total, 0);
});

test('a revoked token is refused at once, also right after it was cached by a successful call', async (t) => {
  const s = await startStack(t);
  const created = await s.ctx.auth.createToken({
    connectionId: s.connectionIds.salesforce,
    name: 'to revoke',
  });
  assert.ok(created.ok);
  const ok = await s.api('/v1/describe', { token: created.token });
  assert.equal(ok.status, 200);
  const revoked = await s.ctx.auth.revoke(created.record.id);
  assert.ok(revoked.ok);
  assertError(await s.api<ErrorBody>('/v1/describe', { token: created.token }), 403, 'revoked_token');
  assertError(
    await s.api<ErrorBody>('/v1/object/get/Account', {
      token: created.token,
      body: { data: { ids: ['001000000000000AAA'] } },
    }),
    403,
    'revoked_token',
  );
});

test('an expired token is refused with 403 expired_token', async (t) => {
  const s = await startStack(t);
  const created = await s.ctx.auth.createToken({
    connectionId: s.connectionIds.salesforce,
    expiresAt: new Date(Date.now() - 1000),
  });
  assert.ok(created.ok);
  assertError(await s.api<ErrorBody>('/v1/describe', { token: created.token }), 403, 'expired_token');
});

test('X-Request-Id is on every answer; a well-formed incoming id is kept, a hostile one replaced', async (t) => {
  const s = await startStack(t);
  const ok = await s.api('/v1/describe', { headers: { 'x-request-id': 'client-abc-12345' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('x-request-id'), 'client-abc-12345');
  const hostile = await s.api<ErrorBody>('/v1/nope', { headers: { 'x-request-id': 'a"<script>' } });
  assert.match(hostile.headers.get('x-request-id') ?? '', /^req_[A-Za-z0-9_-]+$/);
  assert.equal(hostile.body.request_id, hostile.headers.get('x-request-id'));
  const health = await s.api('/healthz', { method: 'GET', token: null });
  assert.match(health.headers.get('x-request-id') ?? '', /^req_/);
});

test('a connection whose refresh token is refused answers 503 connection_needs_reauth', async (t) => {
  const s = await startStack(t);
  const found = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.ok(found !== null);
  await s.ctx.connections.compareAndSetCredentials(s.connectionIds.salesforce, found.version, {
    kind: 'oauth',
    refreshToken: '5Aep861NotARealRefreshToken',
    accessToken: 'expired-or-unknown',
  });
  s.ctx.tokens.forget(s.connectionIds.salesforce);
  const answer = await s.api<ErrorBody>('/v1/describe');
  assertError(answer, 503, 'connection_needs_reauth');
  assert.doesNotMatch(answer.text, /5Aep861NotARealRefreshToken/);
  assertError(await s.api<ErrorBody>('/v1/describe'), 503, 'connection_needs_reauth');
  const after = await s.ctx.connections.get(s.connectionIds.salesforce);
  assert.equal(after?.connection.status, 'needs_reauth');
});
