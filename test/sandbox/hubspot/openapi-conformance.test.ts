import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HubSpotSandbox, startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';
import { check, conforms, KNOWN } from './openapi-check.ts';

interface Call {
  status: number;
  body: unknown;
}

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs: HubSpotSandbox = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token = hs.credentials.accessToken,
  ): Promise<Call> => {
    const res = await fetch(`${hs.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  return { hs, call };
}

const idOf = (c: Call) => (c.body as { id: string }).id;
const resultsOf = (c: Call) => (c.body as { results: { id: string }[] }).results;

test('objects: get, list, create, batch read (200 and 207), batch create, search', async (t) => {
  const { call } = await start(t);
  const doc = 'crm-objects-v3.json';
  const list = await call('GET', '/crm/v3/objects/contacts?limit=5&properties=email,firstname');
  assert.equal(list.status, 200);
  conforms(doc, 'get', '/crm/v3/objects/{objectType}', 200, list.body, [KNOWN.nullPropertyValue]);
  const id = resultsOf(list)[0]?.id ?? '';
  const one = await call('GET', `/crm/v3/objects/contacts/${id}?properties=email,phone`);
  conforms(doc, 'get', '/crm/v3/objects/{objectType}/{objectId}', 200, one.body, [KNOWN.nullPropertyValue]);
  const created = await call('POST', '/crm/v3/objects/contacts', {
    properties: { email: 'spec@example.com' },
  });
  assert.equal(created.status, 201);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}', 201, created.body);
  // `phone` was never set on this contact: recorded answers give it as null.
  const fresh = await call('GET', `/crm/v3/objects/contacts/${idOf(created)}?properties=email,phone`);
  assert.equal((fresh.body as { properties: Record<string, unknown> }).properties.phone, null);
  conforms(doc, 'get', '/crm/v3/objects/{objectType}/{objectId}', 200, fresh.body, [KNOWN.nullPropertyValue]);
  const read = await call('POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    propertiesWithHistory: [],
    inputs: [{ id }, { id: idOf(created) }],
  });
  assert.equal(read.status, 200);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/batch/read', 200, read.body, [KNOWN.nullPropertyValue]);
  const partial = await call('POST', '/crm/v3/objects/contacts/batch/read', {
    properties: ['email'],
    propertiesWithHistory: [],
    inputs: [{ id }, { id: '999999999' }],
  });
  assert.equal(partial.status, 207);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/batch/read', 207, partial.body, [
    KNOWN.nullPropertyValue,
    KNOWN.standardErrorDetails,
  ]);
  const batch = await call('POST', '/crm/v3/objects/companies/batch/create', {
    inputs: [{ properties: { name: 'Spec Co', domain: 'spec.example' } }],
  });
  assert.equal(batch.status, 201);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/batch/create', 201, batch.body);
  const search = await call('POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [{ filters: [{ propertyName: 'email', operator: 'HAS_PROPERTY' }] }],
    properties: ['email', 'lastname'],
    limit: 2,
  });
  assert.equal(search.status, 200);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/search', 200, search.body, [KNOWN.nullPropertyValue]);
});

test('properties: list, get, create, groups, batch create; 409 and 400 error bodies', async (t) => {
  const { call } = await start(t);
  const doc = 'crm-properties-v3.json';
  const list = await call('GET', '/crm/v3/properties/contacts');
  conforms(doc, 'get', '/crm/v3/properties/{objectType}', 200, list.body);
  const one = await call('GET', '/crm/v3/properties/deals/dealstage');
  conforms(doc, 'get', '/crm/v3/properties/{objectType}/{propertyName}', 200, one.body);
  const base = { label: 'Spec', groupName: 'contactinformation' };
  const created = await call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'spec_tier',
    type: 'enumeration',
    fieldType: 'radio',
    options: [{ label: 'A', value: 'a', hidden: false, displayOrder: 0 }],
  });
  assert.equal(created.status, 201);
  conforms(doc, 'post', '/crm/v3/properties/{objectType}', 201, created.body);
  const dup = await call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'spec_tier',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(dup.status, 409);
  conforms(doc, 'post', '/crm/v3/properties/{objectType}', 409, dup.body);
  const bad = await call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'spec_bad',
    type: 'number',
    fieldType: 'text',
  });
  assert.equal(bad.status, 400);
  conforms(doc, 'post', '/crm/v3/properties/{objectType}', 400, bad.body);
  const groups = await call('GET', '/crm/v3/properties/contacts/groups');
  conforms(doc, 'get', '/crm/v3/properties/{objectType}/groups', 200, groups.body);
  const group = await call('POST', '/crm/v3/properties/contacts/groups', {
    name: 'spec_group',
    label: 'Spec group',
  });
  conforms(doc, 'post', '/crm/v3/properties/{objectType}/groups', 201, group.body);
  const batch = await call('POST', '/crm/v3/properties/contacts/batch/create', {
    inputs: [{ ...base, name: 'spec_batch', type: 'datetime', fieldType: 'date' }],
  });
  assert.equal(batch.status, 201);
  conforms(doc, 'post', '/crm/v3/properties/{objectType}/batch/create', 201, batch.body);
});

test('schemas: list, create, get, update', async (t) => {
  const { call } = await start(t);
  const doc = 'crm-schemas-v3.json';
  const list = await call('GET', '/crm-object-schemas/v3/schemas');
  conforms(doc, 'get', '/crm-object-schemas/v3/schemas', 200, list.body, [KNOWN.nullAssociationTimestamps]);
  const created = await call('POST', '/crm-object-schemas/v3/schemas', {
    name: 'spec_widgets',
    labels: { singular: 'Widget', plural: 'Widgets' },
    requiredProperties: ['code'],
    associatedObjects: ['0-1'],
    properties: [{ name: 'code', label: 'Code', type: 'string', fieldType: 'text' }],
  });
  assert.equal(created.status, 201);
  conforms(doc, 'post', '/crm-object-schemas/v3/schemas', 201, created.body, [
    KNOWN.nullAssociationTimestamps,
  ]);
  const typeId = (created.body as { objectTypeId: string }).objectTypeId;
  const one = await call('GET', `/crm-object-schemas/v3/schemas/${typeId}`);
  conforms(doc, 'get', '/crm-object-schemas/v3/schemas/{objectType}', 200, one.body, [
    KNOWN.nullAssociationTimestamps,
  ]);
  const standard = await call('GET', '/crm-object-schemas/v3/schemas/0-3');
  conforms(doc, 'get', '/crm-object-schemas/v3/schemas/{objectType}', 200, standard.body, [
    KNOWN.nullAssociationTimestamps,
  ]);
  const patched = await call('PATCH', `/crm-object-schemas/v3/schemas/${typeId}`, {
    labels: { singular: 'Gadget' },
  });
  conforms(doc, 'patch', '/crm-object-schemas/v3/schemas/{objectType}', 200, patched.body);
});

test('owners and pipelines', async (t) => {
  const { call } = await start(t);
  const owners = await call('GET', '/crm/v3/owners?limit=1');
  conforms('crm-owners-v3.json', 'get', '/crm/v3/owners', 200, owners.body);
  const ownerId = resultsOf(owners)[0]?.id ?? '';
  const owner = await call('GET', `/crm/v3/owners/${ownerId}`);
  conforms('crm-owners-v3.json', 'get', '/crm/v3/owners/{ownerId}', 200, owner.body);
  const missing = await call('GET', '/crm/v3/owners/123456789');
  conforms('crm-owners-v3.json', 'get', '/crm/v3/owners/{ownerId}', 404, missing.body);
  const doc = 'crm-pipelines-v3.json';
  for (const type of ['deals', 'tickets']) {
    const pipelines = await call('GET', `/crm/v3/pipelines/${type}`);
    conforms(doc, 'get', '/crm/v3/pipelines/{objectType}', 200, pipelines.body);
    const pid = resultsOf(pipelines)[0]?.id ?? '';
    const pipeline = await call('GET', `/crm/v3/pipelines/${type}/${pid}`);
    conforms(doc, 'get', '/crm/v3/pipelines/{objectType}/{pipelineId}', 200, pipeline.body);
    const stages = await call('GET', `/crm/v3/pipelines/${type}/${pid}/stages`);
    conforms(doc, 'get', '/crm/v3/pipelines/{objectType}/{pipelineId}/stages', 200, stages.body);
  }
});

test('OAuth: token endpoints (v1, v3), token info, refresh-token info, introspection', async (t) => {
  const { hs } = await start(t);
  const c = hs.credentials;
  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${hs.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }).then((r) => r.json());
  const grant = {
    grant_type: 'refresh_token',
    client_id: c.clientId,
    client_secret: c.clientSecret,
    refresh_token: c.refreshToken,
  };
  conforms('oauth-v1.json', 'post', '/oauth/v1/token', 200, await form('/oauth/v1/token', grant));
  conforms('oauth-v3.json', 'post', '/oauth/v3/token', 200, await form('/oauth/v3/token', grant));
  const info = await fetch(`${hs.url}/oauth/v1/access-tokens/${c.accessToken}`).then((r) => r.json());
  conforms('oauth-v1.json', 'get', '/oauth/v1/access-tokens/{token}', 200, info);
  const refresh = await fetch(`${hs.url}/oauth/v1/refresh-tokens/${c.refreshToken}`).then((r) => r.json());
  conforms('oauth-v1.json', 'get', '/oauth/v1/refresh-tokens/{token}', 200, refresh);
  const client = { client_id: c.clientId, client_secret: c.clientSecret };
  const access = await form('/oauth/v3/token/introspect', {
    ...client,
    token: c.accessToken,
    token_type_hint: 'access_token',
  });
  conforms('oauth-v3.json', 'post', '/oauth/v3/token/introspect', 200, access);
  const refreshIntro = await form('/oauth/v3/token/introspect', {
    ...client,
    token: c.refreshToken,
    token_type_hint: 'refresh_token',
  });
  conforms('oauth-v3.json', 'post', '/oauth/v3/token/introspect', 200, refreshIntro);
});

test('error bodies: 401, 404 and 429 against the spec Error model', async (t) => {
  const hs = await startHubSpotSandbox({
    port: 0,
    rateLimit: { perTenSeconds: 1, searchPerSecond: 1, clock: () => 0 },
  });
  t.after(() => hs.close());
  const get = (path: string, token: string) =>
    fetch(`${hs.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as unknown,
    }));
  const unauthorized = await get('/crm/v3/objects/contacts', 'CKnope');
  assert.equal(unauthorized.status, 401);
  conforms('crm-objects-v3.json', 'get', '/crm/v3/objects/{objectType}', 401, unauthorized.body);
  const token = hs.credentials.privateAppToken;
  const notFound = await get('/crm/v3/objects/contacts/999999999', token);
  assert.equal(notFound.status, 404);
  // Recorded: an unknown record id answers without `category`, which the spec requires.
  conforms('crm-objects-v3.json', 'get', '/crm/v3/objects/{objectType}/{objectId}', 404, notFound.body, [
    KNOWN.noCategory,
  ]);
  const limited = await get('/crm/v3/owners', token);
  assert.equal(limited.status, 429);
  const errors = check('crm-owners-v3.json', 'get', '/crm/v3/owners', 429, limited.body);
  // The captured TEN_SECONDLY_ROLLING body has `errorType`/`policyName` and no `category`: the one deviation.
  assert.deepEqual(
    errors.map((e) => e.params.missingProperty),
    ['category'],
  );
});

test('associations v4: batch create (201, 207), batch read (200, 207); engagements as objects', async (t) => {
  const { hs, call } = await start(t);
  const doc = 'crm-associations-v4.json';
  const [contact] = hs.portal.records.list('0-1');
  const [company, other] = hs.portal.records.list('0-2');
  assert.ok(contact && company && other);
  const note = await call('POST', '/crm/v3/objects/notes', {
    properties: { hs_timestamp: '2025-01-02T03:04:05Z', hs_note_body: 'Called back' },
  });
  assert.equal(note.status, 201);
  conforms('crm-objects-v3.json', 'post', '/crm/v3/objects/{objectType}', 201, note.body);
  const created = await call('POST', '/crm/v4/associations/contacts/companies/batch/create', {
    inputs: [
      {
        from: { id: contact.id },
        to: { id: company.id },
        types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 }],
      },
    ],
  });
  assert.equal(created.status, 201);
  conforms(
    doc,
    'post',
    '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/create',
    201,
    created.body,
  );
  const partial = await call('POST', '/crm/v4/associations/notes/contacts/batch/create', {
    inputs: [
      {
        from: { id: idOf(note) },
        to: { id: contact.id },
        types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 201 }],
      },
      {
        from: { id: idOf(note) },
        to: { id: '99999999' },
        types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 201 }],
      },
    ],
  });
  assert.equal(partial.status, 207);
  conforms(
    doc,
    'post',
    '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/create',
    207,
    partial.body,
    [KNOWN.standardErrorDetails],
  );
  const read = await call('POST', '/crm/v4/associations/contacts/companies/batch/read', {
    inputs: [{ id: contact.id }],
  });
  assert.equal(read.status, 200);
  conforms(doc, 'post', '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/read', 200, read.body);
  const readPartial = await call('POST', '/crm/v4/associations/companies/contacts/batch/read', {
    inputs: [{ id: company.id }, { id: other.id }],
  });
  assert.equal(readPartial.status, 207);
  conforms(
    doc,
    'post',
    '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/read',
    207,
    readPartial.body,
    [KNOWN.standardErrorDetails],
  );
});

test('pipeline writes: create (201), patch (200), stage create (201), and a deal in the new pipeline', async (t) => {
  const { call } = await start(t);
  const doc = 'crm-pipelines-v3.json';
  const created = await call('POST', '/crm/v3/pipelines/deals', {
    label: 'Partners',
    displayOrder: 3,
    stages: [
      { label: 'Signed', displayOrder: 0, metadata: { probability: '0.5' } },
      { label: 'Live', displayOrder: 1, metadata: { probability: '1.0', isClosed: 'true' } },
    ],
  });
  assert.equal(created.status, 201);
  conforms(doc, 'post', '/crm/v3/pipelines/{objectType}', 201, created.body);
  const id = idOf(created);
  const patched = await call('PATCH', `/crm/v3/pipelines/deals/${id}`, { label: 'Partner deals' });
  assert.equal(patched.status, 200);
  conforms(doc, 'patch', '/crm/v3/pipelines/{objectType}/{pipelineId}', 200, patched.body);
  const stage = await call('POST', `/crm/v3/pipelines/deals/${id}/stages`, {
    label: 'Renewal',
    displayOrder: 2,
    metadata: { probability: '0.9' },
  });
  assert.equal(stage.status, 201);
  conforms(doc, 'post', '/crm/v3/pipelines/{objectType}/{pipelineId}/stages', 201, stage.body);
  const bad = await call('POST', '/crm/v3/pipelines/tickets', {
    label: 'Broken',
    displayOrder: 1,
    stages: [{ label: 'x', displayOrder: 0, metadata: {} }],
  });
  assert.equal(bad.status, 400);
  conforms(doc, 'post', '/crm/v3/pipelines/{objectType}', 400, bad.body);
  const deal = await call('POST', '/crm/v3/objects/deals', {
    properties: { dealname: 'Via partner', pipeline: id, dealstage: idOf(stage) },
  });
  assert.equal(deal.status, 201);
});
