import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

const EMAIL = 'ops@example.com';
const PASSWORD = 'correct horse battery staple';

async function operatorKey(s: Stack): Promise<string> {
  const operator = await s.ctx.operators.create(EMAIL, PASSWORD);
  return (await s.ctx.operators.createKey(operator, 'tests')).key;
}

interface Entry {
  method: string;
  path: string;
  status: number;
  crmCalls: number;
  interface: string | null;
  requestId: string;
  tokenId: string | null;
  connectionId: string | null;
  errorCode: string | null;
}

test('the request log keeps each API call with the CRM calls it spent, never its body; the admin API filters it', async (t) => {
  let now = Date.parse('2026-03-02T10:20:00Z');
  const s = await startStack(t, { overrides: { clock: { now: () => now } } });
  const key = await operatorKey(s);
  const admin = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
    s.api<T>(path, {
      method: init.method ?? 'GET',
      token: key,
      ...(init.body === undefined ? {} : { body: init.body }),
    });

  const [id] = s.sf.org.insert('Account', [{ Name: 'Logged' }]).map((r) => r.id);
  const ok = await s.api('/v1/object/get/Account', { body: { data: { ids: [id], fields: ['Name'] } } });
  assert.equal(ok.status, 200);
  const secret = 'do-not-store-this-body';
  const bad = await s.api('/v1/object/get/Account', { body: { data: { ids: 'nope', fields: [secret] } } });
  assert.equal(bad.status, 400);
  const hs = await s.api('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: ['1'] } },
  });
  assert.equal(hs.status, 200);

  const all = await admin<{ data: Entry[] }>('/v1/admin/requests');
  assert.equal(all.status, 200);
  assert.equal(all.body.data.length, 3);
  assert.ok(!all.text.includes(secret), 'no body reaches the log');
  const [hsEntry, badEntry, okEntry] = all.body.data;
  assert.equal(okEntry?.requestId, ok.headers.get('x-request-id'));
  assert.equal(okEntry?.path, '/v1/object/get/Account');
  assert.equal(okEntry?.connectionId, s.connectionIds.salesforce);
  assert.equal(okEntry?.interface, null);
  assert.ok((okEntry?.crmCalls ?? 0) >= 1, 'the get spent CRM calls');
  assert.equal(badEntry?.status, 400);
  assert.equal(badEntry?.crmCalls, 0);
  assert.equal(badEntry?.errorCode, 'invalid_body');
  assert.equal(hsEntry?.connectionId, s.connectionIds.hubspot);

  const clientErrors = await admin<{ data: Entry[] }>('/v1/admin/requests?status_class=4xx');
  assert.deepEqual(
    clientErrors.body.data.map((e) => e.status),
    [400],
  );
  const one = await admin<{ data: Entry[] }>(
    `/v1/admin/requests?request_id=${ok.headers.get('x-request-id')}`,
  );
  assert.deepEqual(
    one.body.data.map((e) => e.path),
    ['/v1/object/get/Account'],
  );
  const perConnection = await admin<{ data: Entry[] }>(
    `/v1/admin/requests?connection_id=${s.connectionIds.hubspot}`,
  );
  assert.equal(perConnection.body.data.length, 1);
  const badFilter = await admin<{ error: { code: string; message: string } }>(
    '/v1/admin/requests?status_class=9xx',
  );
  assert.equal(badFilter.status, 400);
  assert.match(badFilter.body.error.message, /status_class/);

  // The org's daily allowance, read from the Sforce-Limit-Info header of the last answer.
  const connections = await admin<{
    data: Array<{
      id: string;
      status: string;
      allowance: { used: number; limit: number; left: number } | null;
      lastUsedAt: string | null;
    }>;
  }>('/v1/admin/connections');
  const sf = connections.body.data.find((c) => c.id === s.connectionIds.salesforce);
  assert.ok(sf?.allowance !== null && sf?.allowance !== undefined, 'allowance recorded');
  assert.ok(sf.allowance.used >= 1);
  assert.equal(sf.allowance.left, sf.allowance.limit - sf.allowance.used);
  assert.equal(sf.status, 'active');
  assert.equal(sf.lastUsedAt, '2026-03-02T10:20:00.000Z');
  const hsView = connections.body.data.find((c) => c.id === s.connectionIds.hubspot);
  assert.equal(hsView?.allowance, null);

  const usage = await admin<{
    data: Array<{ connectionId: string; hours: string[]; requests: number[]; errors: number[] }>;
  }>(`/v1/admin/usage?connection_id=${s.connectionIds.salesforce}`);
  const series = usage.body.data[0];
  assert.equal(series?.hours.length, 168);
  assert.equal(series?.hours.at(-1), '2026-03-02T10');
  assert.equal(series?.requests.at(-1), 2);
  assert.equal(series?.errors.at(-1), 1);

  // Kept for the configured time, then pruned.
  now += 8 * 86400_000;
  assert.equal(await s.ctx.requestLog.prune(), 3);
  assert.equal((await admin<{ data: Entry[] }>('/v1/admin/requests')).body.data.length, 0);
});

test('a failing CRM marks the connection failing with its last error', async (t) => {
  const s = await startStack(t);
  const key = await operatorKey(s);
  s.sf.realism.script([{ kind: 'error503', match: 'rest.describe', times: 5 }]);
  const failed = await s.api('/v1/describe/Lead');
  assert.equal(failed.status, 502);
  const view = await s.api<{ data: { status: string; lastError: string | null } }>(
    `/v1/admin/connections/${s.connectionIds.salesforce}`,
    { method: 'GET', token: key },
  );
  assert.equal(view.body.data.status, 'failing');
  assert.match(view.body.data.lastError ?? '', /^crm_error/);
  s.sf.realism.clearFaults();
  assert.equal((await s.api('/v1/describe/Lead')).status, 200);
  const healed = await s.api<{ data: { status: string } }>(
    `/v1/admin/connections/${s.connectionIds.salesforce}`,
    {
      method: 'GET',
      token: key,
    },
  );
  assert.equal(healed.body.data.status, 'active');
});

test('the admin API takes operator keys only, and manages tokens and connections', async (t) => {
  const s = await startStack(t);
  const key = await operatorKey(s);
  const withApiToken = await s.api<{ error: { code: string; message: string } }>('/v1/admin/connections', {
    method: 'GET',
  });
  assert.equal(withApiToken.status, 401);
  assert.match(withApiToken.body.error.message, /operator API key/);
  assert.equal((await s.api('/v1/admin/connections', { method: 'GET', token: null })).status, 401);

  const created = await s.api<{ token: string; data: { id: string; prefix: string } }>(
    `/v1/admin/connections/${s.connectionIds.salesforce}/tokens`,
    { token: key, body: { name: 'from admin', expires_in_days: 30 } },
  );
  assert.equal(created.status, 201);
  assert.ok(created.body.token.startsWith(created.body.data.prefix));
  assert.equal((await s.api('/v1/describe', { token: created.body.token })).status, 200);
  const listed = await s.api<{ data: Array<{ id: string; name: string; state: string }> }>(
    `/v1/admin/connections/${s.connectionIds.salesforce}/tokens`,
    { method: 'GET', token: key },
  );
  assert.ok(
    listed.body.data.some(
      (tok) => tok.id === created.body.data.id && tok.name === 'from admin' && tok.state === 'active',
    ),
  );
  assert.equal(
    (await s.api(`/v1/admin/tokens/${created.body.data.id}`, { method: 'DELETE', token: key })).status,
    200,
  );
  assert.equal((await s.api('/v1/describe', { token: created.body.token })).status, 403);

  const badBody = await s.api<{ error: { message: string } }>(
    `/v1/admin/connections/${s.connectionIds.salesforce}/tokens`,
    {
      token: key,
      body: { expires_in_days: 0 },
    },
  );
  assert.equal(badBody.status, 400);
  assert.match(badBody.body.error.message, /expires_in_days/);
  assert.equal(
    (await s.api('/v1/admin/connections/conn_missing', { method: 'GET', token: key })).status,
    404,
  );

  assert.equal(
    (await s.api(`/v1/admin/connections/${s.connectionIds.hubspot}`, { method: 'DELETE', token: key }))
      .status,
    204,
  );
  assert.equal((await s.api('/v1/describe', { token: s.tokens.hubspot })).status, 401);

  await s.ctx.operators.revokeKey((await s.ctx.operators.listKeys())[0]?.id ?? '');
  assert.equal((await s.api('/v1/admin/connections', { method: 'GET', token: key })).status, 401);

  const doc = await s.api<{
    paths: Record<
      string,
      Record<string, { security?: unknown; parameters?: Array<{ name: string; in: string }> }>
    >;
  }>('/openapi.json', { method: 'GET', token: null });
  assert.deepEqual(doc.body.paths['/v1/admin/connections']?.['get']?.security, [{ operatorKey: [] }]);
  assert.ok(
    doc.body.paths['/v1/admin/requests']?.['get']?.parameters?.some(
      (p) => p.name === 'status_class' && p.in === 'query',
    ),
  );
});

test('connect links through the admin API: create, list, revoke', async (t) => {
  const s = await startStack(t);
  const key = await operatorKey(s);
  const created = await s.api<{ data: { id: string; url: string; expiresAt: string } }>(
    '/v1/admin/connect-links',
    {
      token: key,
      body: { provider: 'salesforce', label: 'Globex', ttl_hours: 2 },
    },
  );
  assert.equal(created.status, 201);
  assert.match(created.body.data.url, /\/connect\//);
  const listed = await s.api<{ data: Array<{ id: string; status: string; label: string }> }>(
    '/v1/admin/connect-links',
    {
      method: 'GET',
      token: key,
    },
  );
  assert.deepEqual(
    listed.body.data.map((l) => [l.id, l.status, l.label]),
    [[created.body.data.id, 'active', 'Globex']],
  );
  assert.ok(!listed.text.includes(created.body.data.url), 'the link secret is shown once');
  assert.equal(
    (await s.api(`/v1/admin/connect-links/${created.body.data.id}`, { method: 'DELETE', token: key })).status,
    204,
  );
  const after = await s.api<{ data: Array<{ status: string }> }>('/v1/admin/connect-links', {
    method: 'GET',
    token: key,
  });
  assert.equal(after.body.data[0]?.status, 'revoked');
  assert.equal(
    (await s.api('/v1/admin/connect-links/cl_missing', { method: 'DELETE', token: key })).status,
    404,
  );
  const bad = await s.api<{ error: { message: string } }>('/v1/admin/connect-links', {
    token: key,
    body: { provider: 'Sales Force' },
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /provider/);
});
