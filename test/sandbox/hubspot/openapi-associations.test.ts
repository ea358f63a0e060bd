import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, startHubSpot } from './objects-helpers.ts';
import { conforms, KNOWN } from './openapi-check.ts';

/**
 * The answers of the association paths and pipeline writes against HubSpot's OpenAPI documents
 * (`test/fixtures/hubspot-openapi`): the same calls hubspot-client-associations-paths.test.ts
 * drives through @hubspot/api-client, here as raw JSON so every field is checked.
 */
test('objects: create bodies with associations and ?associations= reads match crm-objects-v3', async (t) => {
  const hs = await startHubSpot(t);
  const doc = 'crm-objects-v3.json';
  const [company] = hs.portal.records.list('0-2');
  assert.ok(company);
  const associations = [
    { to: { id: company.id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 }] },
  ];
  const created = await call(hs, 'POST', '/crm/v3/objects/contacts', {
    properties: { email: 'spec-assoc@example.com' },
    associations,
  });
  assert.equal(created.status, 201);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}', 201, created.body);
  const batch = await call(hs, 'POST', '/crm/v3/objects/contacts/batch/create', {
    inputs: [{ properties: { email: 'spec-assoc2@example.com' }, associations }],
  });
  assert.equal(batch.status, 201);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/batch/create', 201, batch.body);
  const one = await call(
    hs,
    'GET',
    `/crm/v3/objects/contacts/${created.body.id}?associations=companies,deals`,
  );
  assert.deepEqual(Object.keys(one.body.associations), ['companies']);
  conforms(doc, 'get', '/crm/v3/objects/{objectType}/{objectId}', 200, one.body, [KNOWN.nullPropertyValue]);
  const list = await call(hs, 'GET', '/crm/v3/objects/companies?limit=3&associations=contacts');
  assert.equal(list.body.results[0].associations.contacts.results.length, 2);
  conforms(doc, 'get', '/crm/v3/objects/{objectType}', 200, list.body, [KNOWN.nullPropertyValue]);
  const search = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [
      { filters: [{ propertyName: 'associations.company', operator: 'EQ', value: company.id }] },
    ],
  });
  assert.equal(search.body.total, 2);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/search', 200, search.body, [KNOWN.nullPropertyValue]);
  const badSearch = await call(hs, 'POST', '/crm/v3/objects/contacts/search', {
    filterGroups: [{ filters: [{ propertyName: 'associations.nothing', operator: 'EQ', value: '1' }] }],
  });
  assert.equal(badSearch.status, 400);
  conforms(doc, 'post', '/crm/v3/objects/{objectType}/search', 400, badSearch.body);
});

test('associations v4: per-record create, default, list; batch associate-default match crm-associations-v4', async (t) => {
  const hs = await startHubSpot(t);
  const doc = 'crm-associations-v4.json';
  const [contact] = hs.portal.records.list('0-1');
  const [company, other] = hs.portal.records.list('0-2');
  assert.ok(contact && company && other);
  const base = `/crm/v4/objects/contacts/${contact.id}/associations`;
  const labelled = await call(hs, 'PUT', `${base}/companies/${company.id}`, [
    { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 },
  ]);
  assert.equal(labelled.status, 201);
  conforms(
    doc,
    'put',
    '/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}',
    201,
    labelled.body,
  );
  const bad = await call(hs, 'PUT', `${base}/companies/${company.id}`, [
    { associationCategory: 'USER_DEFINED', associationTypeId: 1 },
  ]);
  assert.equal(bad.status, 400);
  conforms(
    doc,
    'put',
    '/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}/{toObjectId}',
    400,
    bad.body,
  );
  const dflt = await call(hs, 'PUT', `${base}/default/companies/${other.id}`);
  assert.equal(dflt.status, 200);
  conforms(
    doc,
    'put',
    '/crm/v4/objects/{fromObjectType}/{fromObjectId}/associations/default/{toObjectType}/{toObjectId}',
    200,
    dflt.body,
  );
  const list = await call(hs, 'GET', `${base}/companies?limit=1`);
  assert.equal(list.body.paging.next.after, other.id);
  conforms(doc, 'get', '/crm/v4/objects/{objectType}/{objectId}/associations/{toObjectType}', 200, list.body);
  const batch = await call(hs, 'POST', '/crm/v4/associations/deals/contacts/batch/associate/default', {
    inputs: [{ from: { id: hs.portal.records.list('0-3')[0]?.id }, to: { id: contact.id } }],
  });
  assert.equal(batch.status, 200);
  conforms(
    doc,
    'post',
    '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/associate/default',
    200,
    batch.body,
  );
  const archived = await call(hs, 'POST', '/crm/v4/associations/contacts/companies/batch/labels/archive', {
    inputs: [
      {
        from: { id: contact.id },
        to: { id: company.id },
        types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 }],
      },
    ],
  });
  assert.equal(archived.status, 204);
  const deleted = await call(hs, 'DELETE', `${base}/companies/${other.id}`);
  assert.equal(deleted.status, 204);
  const after = await call(hs, 'GET', `${base}/companies`);
  assert.deepEqual(after.body, { results: [] });
});

test('pipelines: replace and stage update / replace match crm-pipelines-v3', async (t) => {
  const hs = await startHubSpot(t);
  const doc = 'crm-pipelines-v3.json';
  const stage = { label: 'Open', displayOrder: 0, metadata: { ticketState: 'OPEN' } };
  const created = await call(hs, 'POST', '/crm/v3/pipelines/tickets', {
    label: 'Spec',
    displayOrder: 9,
    stages: [stage],
  });
  const id = created.body.id;
  const replaced = await call(hs, 'PUT', `/crm/v3/pipelines/tickets/${id}`, {
    label: 'Spec two',
    displayOrder: 9,
    stages: [stage, { ...stage, label: 'Done', displayOrder: 1, metadata: { ticketState: 'CLOSED' } }],
  });
  assert.equal(replaced.status, 200);
  conforms(doc, 'put', '/crm/v3/pipelines/{objectType}/{pipelineId}', 200, replaced.body);
  const stageId = replaced.body.stages[1].id;
  const patched = await call(hs, 'PATCH', `/crm/v3/pipelines/tickets/${id}/stages/${stageId}`, {
    label: 'Closed',
    metadata: {},
  });
  assert.equal(patched.status, 200);
  conforms(doc, 'patch', '/crm/v3/pipelines/{objectType}/{pipelineId}/stages/{stageId}', 200, patched.body);
  const put = await call(hs, 'PUT', `/crm/v3/pipelines/tickets/${id}/stages/${stageId}`, {
    ...stage,
    label: 'Reopened',
  });
  conforms(doc, 'put', '/crm/v3/pipelines/{objectType}/{pipelineId}/stages/{stageId}', 200, put.body);
  const missing = await call(hs, 'PATCH', `/crm/v3/pipelines/tickets/${id}/stages/424242`, { metadata: {} });
  assert.equal(missing.status, 404);
  conforms(doc, 'patch', '/crm/v3/pipelines/{objectType}/{pipelineId}/stages/{stageId}', 404, missing.body);
  assert.equal((await call(hs, 'DELETE', `/crm/v3/pipelines/tickets/${id}`)).status, 204);
  assert.equal((await call(hs, 'GET', `/crm/v3/pipelines/tickets/${id}`)).status, 404);
});
