import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec.js';
import { startHubSpot } from './objects-helpers.ts';

/** The official client, unpatched, pointed at the sandbox. */
async function client(t: Parameters<typeof startHubSpot>[0]) {
  const hs = await startHubSpot(t);
  return { hs, hubspot: new Client({ accessToken: hs.credentials.accessToken, basePath: hs.url }) };
}

test('client: association labels are listed and created, both ways', async (t) => {
  const { hubspot } = await client(t);
  const defined = await hubspot.crm.associations.v4.schema.definitionsApi.getAll('contacts', 'companies');
  assert.deepEqual(
    defined.results.map((r) => [r.category, r.typeId, r.label ?? null]),
    [
      ['HUBSPOT_DEFINED', 279, null],
      ['HUBSPOT_DEFINED', 1, 'Primary'],
    ],
  );
  const created = await hubspot.crm.associations.v4.schema.definitionsApi.create('contacts', 'companies', {
    label: 'Billing contact',
    name: 'billing_contact',
    inverseLabel: 'Billed company',
  });
  assert.equal(created.results.length, 2);
  const back = await hubspot.crm.associations.v4.schema.definitionsApi.getAll('companies', 'contacts');
  assert.ok(back.results.some((r) => r.label === 'Billed company' && r.category === 'USER_DEFINED'));
});

test('client: batch create, read (with labels, both ways) and archive; engagements are objects', async (t) => {
  const { hs, hubspot } = await client(t);
  const [contact] = hs.portal.records.list('0-1');
  const [company] = hs.portal.records.list('0-2');
  assert.ok(contact && company);
  const task = await hubspot.crm.objects.basicApi.create('tasks', {
    properties: {
      hs_timestamp: '2025-02-03T10:00:00Z',
      hs_task_subject: 'Call back',
      hs_task_status: 'NOT_STARTED',
    },
    associations: [],
  });
  const created = await hubspot.crm.associations.v4.batchApi.create('contacts', 'companies', {
    inputs: [
      {
        _from: { id: contact.id },
        to: { id: company.id },
        types: [
          {
            associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
            associationTypeId: 1,
          },
        ],
      },
    ],
  });
  assert.deepEqual(created.results[0]?.labels, ['Primary']);
  await hubspot.crm.associations.v4.batchApi.create('tasks', 'contacts', {
    inputs: [
      {
        _from: { id: task.id },
        to: { id: contact.id },
        types: [
          {
            associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined,
            associationTypeId: 203,
          },
        ],
      },
    ],
  });
  const read = await hubspot.crm.associations.v4.batchApi.getPage('companies', 'contacts', {
    inputs: [{ id: company.id }],
  });
  assert.equal(read.results[0]?.to[0]?.toObjectId, contact.id);
  assert.deepEqual(
    read.results[0]?.to[0]?.associationTypes.map((a) => a.typeId),
    [2],
  );
  const tasks = await hubspot.crm.associations.v4.batchApi.getPage('contacts', 'tasks', {
    inputs: [{ id: contact.id }],
  });
  assert.equal(tasks.results[0]?.to[0]?.toObjectId, task.id);

  await hubspot.crm.associations.v4.batchApi.archive('contacts', 'companies', {
    inputs: [{ _from: { id: contact.id }, to: [{ id: company.id }] }],
  });
  const after = await hubspot.crm.associations.v4.batchApi.getPage('companies', 'contacts', {
    inputs: [{ id: company.id }],
  });
  assert.equal(after.results.length, 0);
  assert.equal(hs.accounting.count('associations.batch.create'), 2);
});

test('client: pipelines and stages created and updated', async (t) => {
  const { hubspot } = await client(t);
  const pipeline = await hubspot.crm.pipelines.pipelinesApi.create('tickets', {
    label: 'Escalations',
    displayOrder: 5,
    stages: [{ label: 'New', displayOrder: 0, metadata: { ticketState: 'OPEN' } }],
  });
  assert.equal(pipeline.stages.length, 1);
  const renamed = await hubspot.crm.pipelines.pipelinesApi.update('tickets', pipeline.id, {
    label: 'Escalated',
  });
  assert.equal(renamed.label, 'Escalated');
  const stage = await hubspot.crm.pipelines.pipelineStagesApi.create('tickets', pipeline.id, {
    label: 'Closed',
    displayOrder: 1,
    metadata: { ticketState: 'CLOSED' },
  });
  const all = await hubspot.crm.pipelines.pipelineStagesApi.getAll('tickets', pipeline.id);
  assert.deepEqual(
    all.results.map((s) => s.id),
    [pipeline.stages[0]?.id, stage.id],
  );
});
