import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface HsRecord {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}
interface GetAnswer {
  data: Array<HsRecord | null>;
  errors?: Array<Record<string, unknown>>;
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** Ids of seeded records of a type, straight from the sandbox's portal. */
function idsOf(s: Stack, typeRef: string, n: number): string[] {
  const type = s.hs.portal.types.resolve(typeRef);
  assert.ok(type, typeRef);
  const ids = s.hs.portal.records
    .list(type.objectTypeId)
    .slice(0, n)
    .map((r) => r.id);
  assert.equal(ids.length, n, `${typeRef} has ${n} seeded records`);
  return ids;
}

function get(s: Stack, object: string, data: unknown) {
  return s.api<GetAnswer>(`/v1/object/get/${object}`, { token: s.tokens.hubspot, body: { data } });
}

const SPEC_OBJECTS: Array<[name: string, sandboxType: string]> = [
  ['companies', '0-2'],
  ['contacts', '0-1'],
  ['deals', '0-3'],
  ['feedback_submissions', '0-19'],
  ['line_items', '0-8'],
  ['products', '0-7'],
  ['quotes', '0-14'],
  ['discounts', '0-84'],
  ['fees', '0-85'],
  ['taxes', '0-86'],
  ['tickets', '0-5'],
  ['goals', '0-74'],
];

test('every supported object type: records in input order, null for missing ids, HubSpot errors passed on', async (t) => {
  const s = await startStack(t);
  for (const [name, typeId] of SPEC_OBJECTS) {
    const [a, b] = idsOf(s, typeId, 2);
    assert.ok(a !== undefined && b !== undefined);
    const answer = await get(s, name, { ids: [b, '99999999', a] });
    assert.equal(answer.status, 200, `${name}: ${answer.text.slice(0, 300)}`);
    const [first, missing, third] = answer.body.data;
    assert.equal(first?.id, b, name);
    assert.equal(missing, null, name);
    assert.equal(third?.id, a, name);
    assert.equal(first?.properties['hs_object_id'], b);
    assert.equal(first?.archived, false);
    assert.match(String(first?.createdAt), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(Object.keys(first ?? {}).sort(), [
      'archived',
      'createdAt',
      'id',
      'properties',
      'updatedAt',
    ]);
    const [error] = answer.body.errors ?? [];
    assert.equal(error?.['category'], 'OBJECT_NOT_FOUND', name);
    assert.deepEqual((error?.['context'] as { ids?: string[] } | undefined)?.ids, ['99999999']);
  }
});

test('object names as users write them: singular, upper case, type ids, goal_targets', async (t) => {
  const s = await startStack(t);
  const [contact] = idsOf(s, '0-1', 1);
  const [item] = idsOf(s, '0-8', 1);
  const [goal] = idsOf(s, '0-74', 1);
  const cases: Array<[string, string | undefined]> = [
    ['contact', contact],
    ['CONTACTS', contact],
    ['0-1', contact],
    ['LINE_ITEM', item],
    ['lineitems', item],
    ['goal_targets', goal],
    ['goal', goal],
  ];
  for (const [name, id] of cases) {
    const answer = await get(s, name, { ids: [id] });
    assert.equal(answer.status, 200, `${name}: ${answer.text.slice(0, 200)}`);
    assert.equal(answer.body.data[0]?.id, id, name);
  }
});

test('custom objects by type id, fully qualified name, p_ name and plain name (schemas read once)', async (t) => {
  const s = await startStack(t);
  const ids = idsOf(s, 'p_cars', 2);
  const type = s.hs.portal.types.resolve('p_cars');
  assert.ok(type);
  s.hs.accounting.reset();
  for (const name of [type.objectTypeId, type.fullyQualifiedName, 'p_cars', 'cars', 'Cars']) {
    const answer = await get(s, name, { ids, fields: ['make'] });
    assert.equal(answer.status, 200, `${name}: ${answer.text.slice(0, 200)}`);
    assert.deepEqual(
      answer.body.data.map((r) => r?.id),
      ids,
      name,
    );
    assert.ok(answer.body.data.every((r) => typeof r?.properties['make'] === 'string'));
  }
  // The schemas and the property list are cached per connection.
  assert.equal(s.hs.accounting.count('schemas.list'), 1);
  assert.equal(s.hs.accounting.count('properties.list'), 1);
  assert.equal(s.hs.accounting.count('objects.batch.read'), 5);
});

test('a custom object created after the schemas were cached is found by its plain name', async (t) => {
  // The service looks again at most every 2 s: its clock is moved on rather than waited for.
  let skew = 0;
  const s = await startStack(t, { overrides: { clock: { now: () => Date.now() + skew } } });
  const [car] = idsOf(s, 'p_cars', 1);
  assert.equal((await get(s, 'cars', { ids: [car] })).status, 200);
  const created = await fetch(`${s.hs.url}/crm-object-schemas/v3/schemas`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.hs.credentials.privateAppToken}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      name: 'boats',
      labels: { singular: 'Boat', plural: 'Boats' },
      properties: [{ name: 'hull', label: 'Hull' }],
      requiredProperties: ['hull'],
      associatedObjects: ['0-1'],
    }),
  });
  assert.equal(created.status, 201);
  skew = 5_000;
  const answer = await get(s, 'boats', { ids: ['1'] });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(answer.body.data, [null]);
});

test('fields absent or empty: every property; given: exactly those plus the system properties', async (t) => {
  const s = await startStack(t);
  const [contact] = idsOf(s, '0-1', 1);
  const all = s.hs.portal.properties
    .list('0-1')
    .filter((p) => p.archived !== true && (p.dataSensitivity ?? 'non_sensitive') === 'non_sensitive')
    .map((p) => p.name)
    .sort();
  assert.ok(all.length > 20);
  for (const data of [{ ids: [contact] }, { ids: [contact], fields: [] }]) {
    const answer = await get(s, 'contacts', data);
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.body.data[0]?.properties ?? {}).sort(), all);
  }
  // With fields given: the requested field next to createdate, hs_object_id and lastmodifieddate.
  const one = await get(s, 'contacts', { ids: [contact], fields: ['Email'] });
  assert.equal(one.status, 200);
  assert.deepEqual(Object.keys(one.body.data[0]?.properties ?? {}).sort(), [
    'createdate',
    'email',
    'hs_object_id',
    'lastmodifieddate',
  ]);
  // A known property without a value is there, as null.
  const unset = await get(s, 'contacts', { ids: [contact], fields: ['fax'] });
  assert.equal(unset.body.data[0]?.properties['fax'], null);
  // Companies' modification date is hs_lastmodifieddate: their system trio is kept as HubSpot names it.
  const [company] = idsOf(s, '0-2', 1);
  const co = await get(s, 'companies', { ids: [company], fields: ['name'] });
  assert.deepEqual(Object.keys(co.body.data[0]?.properties ?? {}).sort(), [
    'createdate',
    'hs_lastmodifieddate',
    'hs_object_id',
    'name',
  ]);
});

test('an unknown field is refused with the closest property, before any record is read', async (t) => {
  const s = await startStack(t);
  const [contact] = idsOf(s, '0-1', 1);
  s.hs.accounting.reset();
  const answer = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: [contact], fields: ['email', 'firstnme'] } },
  });
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, 'unknown_field');
  assert.deepEqual(answer.body.error.details, [
    { path: '/data/fields/1', field: 'firstnme', did_you_mean: 'firstname' },
  ]);
  assert.equal(s.hs.accounting.count('objects.batch.read'), 0);
});

test('duplicates answered at each place, malformed ids null and listed, one batch read for 100 ids', async (t) => {
  const s = await startStack(t);
  const [a, b] = idsOf(s, '0-1', 2);
  const dup = await get(s, 'contacts', { ids: [a, 'abc', b, a] });
  assert.equal(dup.status, 200);
  assert.deepEqual(
    dup.body.data.map((r) => r?.id ?? null),
    [a, null, b, a],
  );
  assert.deepEqual(dup.body.errors, [
    { index: 1, id: 'abc', code: 'malformed_id', message: 'Not a HubSpot record id (decimal digits).' },
  ]);

  const contacts = idsOf(s, '0-1', 60);
  const ids = [...contacts, ...Array.from({ length: 40 }, (_, i) => String(90_000_000 + i))];
  s.hs.accounting.reset();
  const hundred = await get(s, 'contacts', { ids, fields: ['email'] });
  assert.equal(hundred.status, 200);
  assert.equal(hundred.body.data.length, 100);
  ids.forEach((id, i) => {
    assert.equal(hundred.body.data[i]?.id ?? null, i < 60 ? id : null);
  });
  assert.equal(s.hs.accounting.count('objects.batch.read'), 1);

  const past = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: [...ids, '1'] } },
  });
  assert.equal(past.status, 400);
  assert.equal(past.body.error.code, 'too_many_ids');
  assert.match(past.body.error.message, /at most 100 ids/);
  assert.equal(s.hs.accounting.count('objects.batch.read'), 1);
});

test('associations and audit logs: 422 saying what to use; unknown objects: 404 listing the supported ones', async (t) => {
  const s = await startStack(t);
  for (const name of ['pipelines', 'stages']) {
    const answer = await s.api<ErrorBody>(`/v1/object/get/${name}`, {
      token: s.tokens.hubspot,
      body: { data: { ids: ['1'] } },
    });
    assert.equal(answer.status, 404, name);
    assert.match(answer.body.error.message, /deal_pipelines or ticket_pipelines/);
  }
  const audit = await s.api<ErrorBody>('/v1/object/get/audit_logs', {
    token: s.tokens.hubspot,
    body: { data: { ids: ['1'] } },
  });
  assert.equal(audit.status, 422);
  assert.match(audit.body.error.message, /propertiesWithHistory/);
  assert.match(audit.body.error.message, /POST \/v1\/audit_logs/);
  for (const name of ['associations']) {
    const answer = await s.api<ErrorBody>(`/v1/object/get/${name}`, {
      token: s.tokens.hubspot,
      body: { data: { ids: ['1'] } },
    });
    assert.equal(answer.status, 422, name);
    assert.equal(answer.body.error.code, 'object_not_supported');
    assert.match(answer.body.error.message, /\/v1\/object\/associations\/\{object_name\}/);
  }
  const unknown = await s.api<ErrorBody>('/v1/object/get/spaceships', {
    token: s.tokens.hubspot,
    body: { data: { ids: ['1'] } },
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'unknown_object');
  const detail = unknown.body.error.details[0];
  assert.deepEqual(detail?.['supported_objects'], [
    ...SPEC_OBJECTS.map(([n]) => n),
    'notes',
    'calls',
    'emails',
    'meetings',
    'tasks',
  ]);
  assert.deepEqual(detail?.['custom_objects'], ['cars']);
  assert.equal(s.hs.accounting.count('objects.batch.read'), 0);
});

test('a connection added with a private-app token reads records', async (t) => {
  const s = await startStack(t);
  const created = await s.ctx.connections.create({
    provider: 'hubspot',
    label: 'private app',
    instanceUrl: null,
    apiBaseUrl: s.hs.url,
    sandbox: true,
    credentials: { kind: 'private_app', token: s.hs.credentials.privateAppToken },
  });
  assert.ok(created.ok);
  const token = await s.ctx.auth.createToken({ connectionId: created.connection.id });
  assert.ok(token.ok);
  const [deal] = idsOf(s, '0-3', 1);
  s.hs.accounting.reset();
  const answer = await s.api<GetAnswer>('/v1/object/get/deals', {
    token: token.token,
    body: { data: { ids: [deal], fields: ['dealname'] } },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data[0]?.id, deal);
  assert.equal(typeof answer.body.data[0]?.properties['dealname'], 'string');
  assert.equal(s.hs.accounting.count('oauth.token'), 0);
});

test('an access token that expires between two requests is refreshed once, for concurrent requests too', async (t) => {
  const s = await startStack(t);
  const [contact] = idsOf(s, '0-1', 1);
  assert.equal((await get(s, 'contacts', { ids: [contact], fields: ['email'] })).status, 200);
  s.hs.accounting.reset();
  const expired = await fetch(`${s.hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.equal(expired.status, 204);
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => get(s, 'contacts', { ids: [contact], fields: ['email'] })),
  );
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  assert.ok(answers.every((a) => a.body.data[0]?.id === contact));
  assert.equal(s.hs.accounting.count('oauth.token.refresh_token'), 1);
  // The next request uses the refreshed token without another refresh.
  assert.equal((await get(s, 'contacts', { ids: [contact] })).status, 200);
  assert.equal(s.hs.accounting.count('oauth.token.refresh_token'), 1);
});

test('an access token close to its expiry is refreshed before the call, without a 401 from HubSpot', async (t) => {
  let skew = 0;
  const s = await startStack(t, {
    hubspot: { accessTokenTtlSeconds: 3600 },
    overrides: { clock: { now: () => Date.now() + skew } },
  });
  const [contact] = idsOf(s, '0-1', 1);
  // The bootstrap token has no known expiry: expire it so the next request refreshes (after a 401)
  // and learns `expires_in`.
  await fetch(`${s.hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  s.hs.accounting.reset();
  assert.equal((await get(s, 'contacts', { ids: [contact] })).status, 200);
  assert.equal(s.hs.accounting.count('oauth.token.refresh_token'), 1);
  let rejected = 0;
  s.ctx.client.addHook((event) => {
    if (event.status === 401) rejected += 1;
  });
  // 30 s before expiry (the service refreshes within its last minute).
  skew = 3_570_000;
  assert.equal((await get(s, 'contacts', { ids: [contact] })).status, 200);
  assert.equal(s.hs.accounting.count('oauth.token.refresh_token'), 2);
  assert.equal(rejected, 0);
});
