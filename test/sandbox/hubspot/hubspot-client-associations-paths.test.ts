import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum as V4Category } from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec.js';
import { AssociationSpecAssociationCategoryEnum as Category } from '@hubspot/api-client/lib/codegen/crm/objects/models/AssociationSpec.js';
import { call, startHubSpot } from './objects-helpers.ts';

/**
 * Associations on every path HubSpot documents for them, driven through the official client,
 * unpatched. Paths and answer models: the v4 guide
 * (https://developers.hubspot.com/docs/api-reference/latest/crm/associations/associations-v4/guide),
 * the objects guide for `associations` in create bodies and `?associations=` on reads, and the
 * search guide for `associations.<type>` filters. Model conformance of the same answers:
 * openapi-associations.test.ts.
 */
async function client(t: Parameters<typeof startHubSpot>[0]) {
  const hs = await startHubSpot(t);
  const [contact] = hs.portal.records.list('0-1');
  const [company, other] = hs.portal.records.list('0-2');
  assert.ok(contact && company && other);
  const hubspot = new Client({ accessToken: hs.credentials.accessToken, basePath: hs.url });
  return { hs, hubspot, contact, company, other };
}

/** The client's model instances as plain JSON, to compare with literals. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

const primary = { associationCategory: Category.HubspotDefined, associationTypeId: 1 };

test('client: a create body associates (single and batch); reads answer ?associations=', async (t) => {
  const { hubspot, company } = await client(t);
  const created = await hubspot.crm.contacts.basicApi.create({
    properties: { email: 'assoc-one@example.com' },
    associations: [{ to: { id: company.id }, types: [primary] }],
  });
  const read = await hubspot.crm.contacts.basicApi.getById(created.id, undefined, undefined, ['companies']);
  assert.deepEqual(plain(read.associations?.['companies']?.results), [
    { id: company.id, type: 'contact_to_company' },
  ]);
  const batch = await hubspot.crm.objects.batchApi.create('deals', {
    inputs: [
      {
        properties: { dealname: 'Assoc deal', pipeline: 'default', dealstage: 'appointmentscheduled' },
        associations: [
          {
            to: { id: created.id },
            types: [{ associationCategory: Category.HubspotDefined, associationTypeId: 3 }],
          },
        ],
      },
    ],
  });
  const dealId = batch.results[0]?.id ?? '';
  const page = await hubspot.crm.deals.basicApi.getPage(100, undefined, undefined, undefined, ['contacts']);
  const deal = page.results.find((d) => d.id === dealId);
  assert.deepEqual(plain(deal?.associations?.['contacts']?.results), [
    { id: created.id, type: 'deal_to_contact' },
  ]);
  // The inverse is kept on the contact, under the v3 name of type 4.
  const back = await hubspot.crm.contacts.basicApi.getById(created.id, undefined, undefined, ['deals']);
  assert.deepEqual(plain(back.associations?.['deals']?.results), [{ id: dealId, type: 'contact_to_deal' }]);
  // Without the parameter there is no `associations` key.
  const bare = await hubspot.crm.contacts.basicApi.getById(created.id);
  assert.equal(bare.associations, undefined);
});

test('client: a bad association in a create body is a 400 naming it, and nothing is created', async (t) => {
  const { hs, hubspot, company } = await client(t);
  const before = hs.portal.records.list('0-1').length;
  await assert.rejects(
    hubspot.crm.contacts.basicApi.create({
      properties: { email: 'assoc-bad@example.com' },
      associations: [
        {
          to: { id: company.id },
          types: [{ associationCategory: Category.HubspotDefined, associationTypeId: 999 }],
        },
      ],
    }),
    (e: { code: number; body: { message: string } }) =>
      e.code === 400 && e.body.message.startsWith('associations[0].types[0] HUBSPOT_DEFINED/999'),
  );
  await assert.rejects(
    hubspot.crm.contacts.basicApi.create({
      properties: { email: 'assoc-bad@example.com' },
      associations: [{ to: { id: '99999999' }, types: [primary] }],
    }),
    (e: { code: number; body: { message: string } }) =>
      e.code === 400 && e.body.message === 'associations[0].to.id: no COMPANY with id 99999999 exists.',
  );
  assert.equal(hs.portal.records.list('0-1').length, before);
});

test('client: search on associations.company finds the associated contacts only', async (t) => {
  const { hubspot, contact, company, other } = await client(t);
  await hubspot.crm.associations.v4.basicApi.createDefault('contacts', contact.id, 'companies', company.id);
  const search = (companyId: string) =>
    hubspot.crm.contacts.searchApi.doSearch({
      filterGroups: [
        { filters: [{ propertyName: 'associations.company', operator: 'EQ' as never, value: companyId }] },
      ],
    });
  const found = await search(company.id);
  assert.deepEqual(
    found.results.map((r) => r.id),
    [contact.id],
  );
  assert.equal((await search(other.id)).total, 0);
});

test('client: v4 per-record create (labelled), create default, list and archive', async (t) => {
  const { hubspot, contact, company, other } = await client(t);
  const [label] = (
    await hubspot.crm.associations.v4.schema.definitionsApi.create('contacts', 'companies', {
      label: 'Billing contact',
      name: 'billing_contact',
    })
  ).results;
  assert.ok(label);
  const labelled = await hubspot.crm.associations.v4.basicApi.create(
    'contacts',
    contact.id,
    'companies',
    company.id,
    [
      { associationCategory: V4Category.UserDefined, associationTypeId: label.typeId },
      { associationCategory: V4Category.HubspotDefined, associationTypeId: 1 },
    ],
  );
  assert.deepEqual([...labelled.labels].sort(), ['Billing contact', 'Primary']);
  const dflt = await hubspot.crm.associations.v4.basicApi.createDefault(
    'contacts',
    contact.id,
    'companies',
    other.id,
  );
  assert.deepEqual(plain(dflt.results[0]?.associationSpec), {
    associationCategory: 'HUBSPOT_DEFINED',
    associationTypeId: 279,
  });
  const list = await hubspot.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'companies');
  assert.deepEqual(
    list.results.map((r) => [r.toObjectId, r.associationTypes.map((a) => a.typeId).sort((a, b) => a - b)]),
    [
      [company.id, [1, label.typeId]],
      [other.id, [279]],
    ],
  );
  const firstPage = await hubspot.crm.associations.v4.basicApi.getPage(
    'contacts',
    contact.id,
    'companies',
    undefined,
    1,
  );
  assert.equal(firstPage.paging?.next?.after, other.id);
  await hubspot.crm.associations.v4.basicApi.archive('contacts', contact.id, 'companies', company.id);
  const after = await hubspot.crm.associations.v4.basicApi.getPage('companies', company.id, 'contacts');
  assert.deepEqual(after.results, []);
  await assert.rejects(
    hubspot.crm.associations.v4.basicApi.createDefault('contacts', contact.id, 'companies', '99999999'),
    (e: { code: number }) => e.code === 404,
  );
});

test('client: v4 batch associate-default and label archive keep the other types', async (t) => {
  const { hubspot, contact, company, other } = await client(t);
  const dflt = await hubspot.crm.associations.v4.batchApi.createDefault('contacts', 'companies', {
    inputs: [
      { _from: { id: contact.id }, to: { id: company.id } },
      { _from: { id: contact.id }, to: { id: other.id } },
    ],
  });
  assert.deepEqual(
    dflt.results.map((r) => [r.to.id, r.associationSpec.associationTypeId]),
    [
      [company.id, 279],
      [other.id, 279],
    ],
  );
  await hubspot.crm.associations.v4.batchApi.create('contacts', 'companies', {
    inputs: [
      {
        _from: { id: contact.id },
        to: { id: company.id },
        types: [{ associationCategory: V4Category.HubspotDefined, associationTypeId: 1 }],
      },
    ],
  });
  await hubspot.crm.associations.v4.batchApi.archiveLabels('contacts', 'companies', {
    inputs: [
      {
        _from: { id: contact.id },
        to: { id: company.id },
        types: [{ associationCategory: V4Category.HubspotDefined, associationTypeId: 1 }],
      },
    ],
  });
  const read = await hubspot.crm.associations.v4.batchApi.getPage('companies', 'contacts', {
    inputs: [{ id: company.id }],
  });
  // Only the primary label went (from the contact, and its inverse 2 from the company); 280 stays.
  assert.deepEqual(
    read.results[0]?.to[0]?.associationTypes.map((a) => a.typeId),
    [280],
  );
});

test('client: v3 batch associations create, read and archive, sharing the v4 store', async (t) => {
  const { hs, hubspot, contact, company } = await client(t);
  const created = await hubspot.crm.associations.batchApi.create('contacts', 'companies', {
    inputs: [{ _from: { id: contact.id }, to: { id: company.id }, type: 'contact_to_company_unlabeled' }],
  });
  assert.deepEqual(
    created.results.map((r) => r.type),
    ['contact_to_company_unlabeled'],
  );
  const v4 = await hubspot.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'companies');
  assert.deepEqual(
    v4.results[0]?.associationTypes.map((a) => a.typeId),
    [279],
  );
  const read = await hubspot.crm.associations.batchApi.read('companies', 'contacts', {
    inputs: [{ id: company.id }],
  });
  assert.deepEqual(plain(read.results[0]?.to), [{ id: contact.id, type: 'company_to_contact_unlabeled' }]);
  await hubspot.crm.associations.batchApi.archive('contacts', 'companies', {
    inputs: [{ _from: { id: contact.id }, to: { id: company.id }, type: 'contact_to_company_unlabeled' }],
  });
  const gone = await call(hs, 'POST', '/crm/v3/associations/contacts/companies/batch/read', {
    inputs: [{ id: contact.id }],
  });
  assert.equal(gone.status, 207);
  assert.equal(gone.body.errors[0].category, 'OBJECT_NOT_FOUND');
});

test('client: pipelines replaced and deleted, stages updated, replaced and deleted', async (t) => {
  const { hubspot } = await client(t);
  const stage = (label: string, displayOrder: number, probability: string) => ({
    label,
    displayOrder,
    metadata: { probability },
  });
  const pipeline = await hubspot.crm.pipelines.pipelinesApi.create('deals', {
    label: 'Partners',
    displayOrder: 3,
    stages: [stage('Intro', 0, '0.1'), stage('Won', 1, '1.0')],
  });
  const replaced = await hubspot.crm.pipelines.pipelinesApi.replace('deals', pipeline.id, {
    label: 'Partner deals',
    displayOrder: 4,
    stages: [stage('Qualified', 0, '0.3')],
  });
  assert.equal(replaced.label, 'Partner deals');
  assert.deepEqual(
    replaced.stages.map((s) => s.label),
    ['Qualified'],
  );
  const stageId = replaced.stages[0]?.id ?? '';
  const updated = await hubspot.crm.pipelines.pipelineStagesApi.update('deals', pipeline.id, stageId, {
    label: 'Qualified lead',
    metadata: { probability: '0.4' },
  });
  assert.equal(updated.label, 'Qualified lead');
  assert.equal(updated.metadata?.['probability'], '0.4');
  const replacedStage = await hubspot.crm.pipelines.pipelineStagesApi.replace(
    'deals',
    pipeline.id,
    stageId,
    stage('Demo', 2, '0.5'),
  );
  assert.deepEqual([replacedStage.id, replacedStage.label], [stageId, 'Demo']);
  await assert.rejects(
    hubspot.crm.pipelines.pipelineStagesApi.update('deals', pipeline.id, stageId, {
      metadata: { probability: '7' },
    }),
    (e: { code: number }) => e.code === 400,
  );
  await hubspot.crm.pipelines.pipelineStagesApi.archive('deals', pipeline.id, stageId);
  assert.deepEqual((await hubspot.crm.pipelines.pipelineStagesApi.getAll('deals', pipeline.id)).results, []);
  await hubspot.crm.pipelines.pipelinesApi.archive('deals', pipeline.id);
  await assert.rejects(
    hubspot.crm.pipelines.pipelinesApi.getById('deals', pipeline.id),
    (e: { code: number }) => e.code === 404,
  );
});
