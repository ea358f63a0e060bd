// The account's audit log through the HTTP API (POST /v1/audit_logs), against the HubSpot sandbox's
// account activity API. HubSpot's endpoint as documented at
// https://developers.hubspot.com/docs/api-reference/account-audit-logs-v3/activity/get-account-info-v3-activity-audit-logs
// (GET /account-info/v3/activity/audit-logs; actingUserId, occurredAfter, occurredBefore, sort,
// limit, after; scope account-info.security.read; 403 MISSING_SCOPES without it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditEntry } from '../../sandbox/hubspot/model/audit-log.ts';
import { type Stack, startStack } from '../helpers/stack.ts';
import { beginFlow, connectedId, runFlow } from './connect-helpers.ts';

/** An entry as HubSpot answers it; the service passes it on unchanged. */
type Entry = AuditEntry;
interface Page {
  data: { records: Entry[]; done: boolean; next_cursor: string | null };
}
interface ErrorBody {
  error: { code: string; message: string; details?: Array<Record<string, unknown>> };
}

const read = <T = Page>(s: Stack, body: unknown, token = s.tokens.hubspot) =>
  s.api<T>('/v1/audit_logs', { token, body });

test('audit logs: writes made through the API are read back, paged by cursor, filtered by time and acting user', async (t) => {
  const s = await startStack(t);
  const inserted = await s.api<{ data: Array<{ id: string }> }>('/v1/object/insert/contacts', {
    token: s.tokens.hubspot,
    body: { data: [{ email: 'audit.one@example.com' }, { email: 'audit.two@example.com' }] },
  });
  assert.equal(inserted.status, 200, inserted.text);
  const ids = inserted.body.data.map((r) => r.id);
  const updated = await s.api('/v1/object/update/contacts', {
    token: s.tokens.hubspot,
    body: { data: [{ id: ids[0], firstname: 'Audrey' }] },
  });
  assert.equal(updated.status, 200, updated.text);

  const all = await read(s, {});
  assert.equal(all.status, 200, all.text);
  assert.equal(all.body.data.done, true);
  assert.equal(all.body.data.next_cursor, null);
  const actions = all.body.data.records.filter((e) => ids.includes(e.targetObjectId ?? ''));
  assert.deepEqual(
    actions.map((e) => [e.category, e.action, e.targetObjectId]),
    [
      ['CRM_OBJECT', 'CREATE', ids[0]],
      ['CRM_OBJECT', 'CREATE', ids[1]],
      ['PROPERTY_VALUE', 'UPDATE', ids[0]],
    ],
  );
  assert.equal(actions[0]?.subCategory, 'CONTACT');
  assert.equal(typeof actions[0]?.actingUser.userId, 'number');

  // Pages of 3 by cursor give back every entry once, in order.
  const paged: Entry[] = [];
  let page = await read(s, { data: { limit: 3 } });
  for (let i = 0; i < 20; i += 1) {
    assert.equal(page.status, 200, page.text);
    assert.ok(page.body.data.records.length <= 3);
    paged.push(...page.body.data.records);
    const cursor = page.body.data.next_cursor;
    if (cursor === null) break;
    assert.equal(page.body.data.done, false);
    page = await read(s, { cursor });
  }
  assert.deepEqual(
    paged.map((e) => e.id),
    all.body.data.records.map((e) => e.id),
  );

  // Time range and order: only the entries after the first create, newest first.
  const since = new Date(Date.parse(actions[0]?.occurredAt ?? '') - 1).toISOString();
  const recent = await read(s, { data: { occurred_after: since, order: 'newest_first' } });
  assert.equal(recent.status, 200, recent.text);
  assert.ok(recent.body.data.records.every((e) => e.occurredAt > since));
  assert.equal(recent.body.data.records[0]?.targetObjectId, ids[0], 'the update is the newest');
  const old = await read(s, { data: { occurred_before: '2025-01-01T00:00:00Z' } });
  assert.ok(old.body.data.records.length > 0);
  assert.ok(old.body.data.records.every((e) => e.occurredAt < '2025-01-01'));

  // Acting users: the seeded account's other users' past actions only.
  const others = await read(s, { data: { acting_user_ids: [1122335, 1122336] } });
  assert.ok(others.body.data.records.length >= 2);
  assert.deepEqual(
    new Set(others.body.data.records.map((e) => e.actingUser.userId)),
    new Set([1122335, 1122336]),
  );
});

test('audit logs: bad filters and cursors are 400 naming the field; Salesforce connections get 422', async (t) => {
  const s = await startStack(t);
  const cases: Array<[unknown, string]> = [
    [{ data: { occurred_after: 'yesterday' } }, '/data/occurred_after'],
    [{ data: { occurred_after: '2026-02-30T00:00:00Z' } }, '/data/occurred_after'],
    [{ data: { occurred_after: '2026-03-02', occurred_before: '2026-03-01' } }, '/data/occurred_before'],
    [{ data: { acting_user_ids: ['ada'] } }, '/data/acting_user_ids/0'],
    [{ data: { limit: 0 } }, '/data/limit'],
    [{ data: { order: 'sideways' } }, '/data/order'],
    [{ data: {}, cursor: 'x' }, '/cursor'],
  ];
  for (const [body, path] of cases) {
    const r = await read<ErrorBody>(s, body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.ok(JSON.stringify(r.body.error.details).includes(path), `${path} in ${r.text}`);
  }
  // A word where a date goes: the answer says which forms are accepted, not a regular expression.
  const word = await read<ErrorBody>(s, { data: { occurred_after: 'yesterday' } });
  assert.match(word.body.error.message, /ISO 8601 date or date-time, such as 2026-03-01/);
  assert.doesNotMatch(word.text, /must not be empty|\\\\d|\^/);
  const forged = await read<ErrorBody>(s, { cursor: 'eyJjIjoiY29ubl94In0.bad' });
  assert.equal(forged.status, 400);
  assert.equal(forged.body.error.code, 'invalid_cursor');

  const sf = await read<ErrorBody>(s, {}, s.tokens.salesforce);
  assert.equal(sf.status, 422, sf.text);
  assert.equal(sf.body.error.code, 'operation_not_available');
  assert.match(sf.body.error.message, /audit_logs is not available for Salesforce connections/);
  const wrongMethod = await s.api('/v1/audit_logs', { token: s.tokens.hubspot, method: 'GET' });
  assert.equal(wrongMethod.status, 405);
});

test('audit logs: a connection granted without account-info.security.read gets 503 crm_scope_missing; the default connect flow asks for it as optional', async (t) => {
  const narrow = await startStack(t, { env: { HUBSPOT_OPTIONAL_SCOPES: 'crm.objects.custom.read' } });
  const done = await runFlow(narrow, await beginFlow(narrow, { provider: 'hubspot' }));
  assert.equal(done.outcome, 'connected', done.html);
  const token = await narrow.ctx.auth.createToken({ connectionId: connectedId(done) });
  assert.ok(token.ok);
  const refused = await read<ErrorBody>(narrow, {}, token.token);
  assert.equal(refused.status, 503, refused.text);
  assert.equal(refused.body.error.code, 'crm_scope_missing');
  assert.match(refused.body.error.message, /account-info\.security\.read/);
  assert.match(refused.body.error.message, /connects the account again/);
  assert.deepEqual(refused.body.error.details?.[0]?.['required_scopes'], ['account-info.security.read']);
  // The same connection still reads records: the scope only gates the audit log.
  const get = await narrow.api('/v1/object/get/contacts', {
    token: token.token,
    body: { data: { ids: ['1013'] } },
  });
  assert.equal(get.status, 200, get.text);

  const wide = await startStack(t);
  const start = await beginFlow(wide, { provider: 'hubspot' });
  const optional = new URL(start.authorizeUrl).searchParams.get('optional_scope') ?? '';
  assert.ok(optional.split(' ').includes('account-info.security.read'), optional);
  assert.ok(!(new URL(start.authorizeUrl).searchParams.get('scope') ?? '').includes('account-info'));
  const connected = await runFlow(wide, start);
  const wideToken = await wide.ctx.auth.createToken({ connectionId: connectedId(connected) });
  assert.ok(wideToken.ok);
  const allowed = await read(wide, { data: { order: 'newest_first', limit: 1 } }, wideToken.token);
  assert.equal(allowed.status, 200, allowed.text);
  assert.equal(allowed.body.data.records[0]?.category, 'LOGIN', 'the consent sign-in is the newest entry');
});
