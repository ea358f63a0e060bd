// The HubSpot sandbox's account activity API (`GET /account-info/v3/activity/audit-logs`), as
// HubSpot documents it: https://developers.hubspot.com/docs/api-reference/account-audit-logs-v3/activity/get-account-info-v3-activity-audit-logs
// (model `PublicApiUserActionEvent`, `ForwardPaging`; scope account-info.security.read). The
// sort values, the exclusive time bounds and the 200 page cap are the sandbox's reading of it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import type { AuditEntry } from '../../../sandbox/hubspot/model/audit-log.ts';

/** An entry as HubSpot answers it; the service passes it on unchanged. */
type Entry = AuditEntry;
interface Page {
  results: Entry[];
  paging?: { next: { after: string; link: string } };
}

const REDIRECT = 'https://app.example/callback';
const PATH = '/account-info/v3/activity/audit-logs';

async function start(t: TestContext, persistDir?: string) {
  const hs = await startHubSpotSandbox({
    port: 0,
    rateLimit: { enabled: false },
    ...(persistDir === undefined ? {} : { persistDir }),
  });
  t.after(() => hs.close());
  const call = async (path: string, init: RequestInit = {}, token = hs.credentials.accessToken) => {
    const res = await fetch(`${hs.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
  };
  const audit = async (query = '', token?: string) => {
    const r = await call(`${PATH}${query}`, {}, token);
    return { status: r.status, body: r.body as unknown as Page };
  };
  return { hs, call, audit };
}

/** A token granted only `scope` through the consent page. */
async function tokenWith(url: string, clientId: string, clientSecret: string, scope: string) {
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual' as const,
  });
  const decision = await fetch(
    `${url}/oauth/authorize`,
    form({ client_id: clientId, redirect_uri: REDIRECT, scope, decision: 'allow' }),
  );
  const code = new URL(decision.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const issued = await fetch(
    `${url}/oauth/v1/token`,
    form({
      grant_type: 'authorization_code',
      client_id: clientId,
      client_secret: clientSecret,
      code,
      redirect_uri: REDIRECT,
    }),
  );
  return ((await issued.json()) as { access_token: string }).access_token;
}

test('audit logs: the seeded past, then every record, property and pipeline write, oldest first in the documented shape', async (t) => {
  const { call, audit } = await start(t);
  const before = await audit();
  assert.equal(before.status, 200);
  assert.ok(before.body.results.length >= 6, 'sign-ins and pipeline set-up are seeded');
  assert.equal(before.body.paging, undefined);
  const startCount = before.body.results.length;

  const created = await call('/crm/v3/objects/contacts', {
    method: 'POST',
    body: JSON.stringify({ properties: { email: 'audited@example.com' } }),
  });
  assert.equal(created.status, 201);
  const id = String(created.body['id']);
  await call(`/crm/v3/objects/contacts/${id}`, {
    method: 'PATCH',
    body: JSON.stringify({ properties: { firstname: 'Audrey' } }),
  });
  await call(`/crm/v3/objects/contacts/${id}`, { method: 'DELETE' });
  await call('/crm/v3/properties/contacts', {
    method: 'POST',
    body: JSON.stringify({
      name: 'audit_tier',
      label: 'Tier',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
    }),
  });
  const pipeline = await call('/crm/v3/pipelines/deals', {
    method: 'POST',
    body: JSON.stringify({
      label: 'Audit pipeline',
      displayOrder: 5,
      stages: [{ label: 'Open', displayOrder: 0, metadata: { probability: '0.5' } }],
    }),
  });
  assert.equal(pipeline.status, 201, JSON.stringify(pipeline.body));

  const after = await audit();
  const added = after.body.results.slice(startCount);
  assert.deepEqual(
    added.map((e) => [e.category, e.subCategory, e.action, e.targetObjectId]),
    [
      ['CRM_OBJECT', 'CONTACT', 'CREATE', id],
      ['PROPERTY_VALUE', 'CONTACT', 'UPDATE', id],
      ['CRM_OBJECT', 'CONTACT', 'DELETE', id],
      ['PROPERTY', 'CONTACT', 'CREATE', 'audit_tier'],
      ['PIPELINE', 'DEAL', 'CREATE', 'Audit pipeline'],
    ],
  );
  for (const e of after.body.results) {
    assert.equal(typeof e.id, 'string');
    assert.match(e.occurredAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(typeof e.actingUser.userId, 'number');
  }
  assert.deepEqual(added[0]?.actingUser, { userId: 1122334, userEmail: 'ada.owner@sandbox.example' });
  const times = after.body.results.map((e) => e.occurredAt);
  assert.deepEqual(times, [...times].sort(), 'oldest first by default');
  const newest = await audit('?sort=-occurredAt&limit=1');
  assert.equal(newest.body.results[0]?.targetObjectId, 'Audit pipeline');
});

test('audit logs: paging with after/link, filters on acting users and time, 400 on bad parameters', async (t) => {
  const { audit } = await start(t);
  const all = (await audit()).body.results;
  const pages: Entry[] = [];
  let query = '?limit=4';
  for (let i = 0; i < 10; i += 1) {
    const page = await audit(query);
    assert.equal(page.status, 200);
    assert.ok(page.body.results.length <= 4);
    pages.push(...page.body.results);
    const next = page.body.paging?.next;
    if (next === undefined) break;
    assert.match(next.link, new RegExp(`after=${next.after}`));
    query = `?limit=4&after=${next.after}`;
  }
  assert.deepEqual(
    pages.map((e) => e.id),
    all.map((e) => e.id),
  );

  const grace = await audit('?actingUserId=1122335');
  assert.ok(grace.body.results.length >= 2);
  assert.ok(grace.body.results.every((e) => e.actingUser.userId === 1122335));
  const two = await audit('?actingUserId=1122335&actingUserId=1122336');
  assert.deepEqual(new Set(two.body.results.map((e) => e.actingUser.userId)), new Set([1122335, 1122336]));

  const pivot = all[2]?.occurredAt ?? '';
  const later = await audit(`?occurredAfter=${encodeURIComponent(pivot)}`);
  assert.ok(later.body.results.every((e) => e.occurredAt > pivot));
  const earlier = await audit(`?occurredBefore=${encodeURIComponent(pivot)}`);
  assert.ok(earlier.body.results.every((e) => e.occurredAt < pivot));
  assert.equal(
    later.body.results.length + earlier.body.results.length,
    all.filter((e) => e.occurredAt !== pivot).length,
  );

  for (const bad of ['?occurredAfter=yesterday', '?limit=0', '?actingUserId=ada', '?sort=id', '?after=x']) {
    const r = await audit(bad);
    assert.equal(r.status, 400, bad);
    const body = r.body as unknown as { status: string; category: string; message: string };
    assert.equal(body.category, 'VALIDATION_ERROR');
    assert.equal(body.status, 'error');
  }
});

test('audit logs: 403 MISSING_SCOPES without account-info.security.read, 401 without a token; a consent sign-in is logged', async (t) => {
  const { hs, audit } = await start(t);
  const { clientId, clientSecret } = hs.credentials;
  const narrow = await tokenWith(hs.url, clientId, clientSecret, 'crm.objects.contacts.read');
  const refused = await audit('', narrow);
  assert.equal(refused.status, 403);
  const body = refused.body as unknown as {
    category: string;
    correlationId: string;
    errors: Array<{ context: { requiredGranularScopes: string[] } }>;
  };
  assert.equal(body.category, 'MISSING_SCOPES');
  assert.deepEqual(body.errors[0]?.context.requiredGranularScopes, ['account-info.security.read']);
  assert.equal((await audit('', 'not-a-token')).status, 401);

  const wide = await tokenWith(hs.url, clientId, clientSecret, 'account-info.security.read');
  const logins = (await audit('?sort=-occurredAt', wide)).body.results.filter((e) => e.category === 'LOGIN');
  assert.equal(logins[0]?.subCategory, 'LOGIN_SUCCEEDED');
  assert.equal(logins[0]?.actingUser.userId, 1122334);
  assert.ok((logins[0]?.occurredAt ?? '') > '2025', 'the two consents just made, after the seeded sign-ins');
});

test('audit logs are kept with the portal across a restart', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = await start(t, dir);
  const created = await first.call('/crm/v3/objects/companies', {
    method: 'POST',
    body: JSON.stringify({ properties: { name: 'Kept Co' } }),
  });
  const id = String(created.body['id']);
  await first.hs.close();
  const second = await start(t, dir);
  const kept = (await second.audit('?sort=-occurredAt&limit=1')).body.results[0];
  assert.deepEqual([kept?.category, kept?.subCategory, kept?.targetObjectId], ['CRM_OBJECT', 'COMPANY', id]);
});
