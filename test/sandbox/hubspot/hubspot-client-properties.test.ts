import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties/models/PropertyCreate.js';
import { ObjectTypePropertyCreateTypeEnum } from '@hubspot/api-client/lib/codegen/crm/schemas/models/ObjectTypePropertyCreate.js';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  const client = new Client({ accessToken: hs.credentials.accessToken, basePath: hs.url });
  return { hs, client };
}

test('crm.properties.coreApi: create then list and get; records accept the new property', async (t) => {
  const { hs, client } = await start(t);
  const created = await client.crm.properties.coreApi.create('contacts', {
    name: 'favorite_food',
    label: 'Favorite food',
    groupName: 'contactinformation',
    type: PropertyCreateTypeEnum.Enumeration,
    fieldType: PropertyCreateFieldTypeEnum.Select,
    options: [
      { label: 'Pizza', value: 'pizza', hidden: false, displayOrder: 0 },
      { label: 'Sushi', value: 'sushi', hidden: false, displayOrder: 1 },
    ],
  });
  assert.equal(created.name, 'favorite_food');
  assert.equal(created.options.length, 2);
  assert.ok(created.createdAt instanceof Date);
  assert.equal(hs.accounting.count('properties.create'), 1);
  const all = await client.crm.properties.coreApi.getAll('contacts');
  assert.ok(all.results.some((p) => p.name === 'favorite_food'));
  // `properties` is one comma-separated string in this client (the spec's `properties` query param).
  const some = await client.crm.properties.coreApi.getAll('contacts', false, 'favorite_food,email');
  assert.deepEqual(some.results.map((p) => p.name).sort(), ['email', 'favorite_food']);
  const one = await client.crm.properties.coreApi.getByName('contacts', 'favorite_food');
  assert.equal(one.fieldType, 'select');
  const rec = await client.crm.contacts.basicApi.create({
    properties: { email: 'food@example.com', favorite_food: 'sushi' },
    associations: [],
  });
  const back = await client.crm.contacts.basicApi.getById(rec.id, ['favorite_food']);
  assert.equal(back.properties.favorite_food, 'sushi');
});

test('crm.properties.coreApi: 409 and 400 surface as ApiException with HubSpot bodies', async (t) => {
  const { client } = await start(t);
  const base = { label: 'X', groupName: 'contactinformation', type: PropertyCreateTypeEnum.String };
  await assert.rejects(
    client.crm.properties.coreApi.create('contacts', {
      ...base,
      name: 'email',
      fieldType: PropertyCreateFieldTypeEnum.Text,
    }),
    (e: { code?: number; body?: { category?: string } }) =>
      e.code === 409 && e.body?.category === 'OBJECT_ALREADY_EXISTS',
  );
  await assert.rejects(
    client.crm.properties.coreApi.create('contacts', {
      ...base,
      name: 'str_num',
      fieldType: PropertyCreateFieldTypeEnum.Number,
    }),
    (e: { code?: number; body?: { category?: string } }) =>
      e.code === 400 && e.body?.category === 'VALIDATION_ERROR',
  );
});

test('crm.properties.groupsApi create and getAll', async (t) => {
  const { client } = await start(t);
  const g = await client.crm.properties.groupsApi.create('deals', {
    name: 'scoring',
    label: 'Scoring',
    displayOrder: 2,
  });
  assert.equal(g.name, 'scoring');
  const all = await client.crm.properties.groupsApi.getAll('deals');
  assert.ok(all.results.some((x) => x.name === 'scoring'));
});

// The client (13.x) calls `/crm-object-schemas/v3/schemas` (the current spec's path); HubSpot's older docs, the
// recordings and most integrations use `/crm/v3/schemas`. Both are live on HubSpot; the sandbox serves both
// (schemas.test.ts covers the older path).
test('crm.schemas.coreApi: create, getById, getAll, then records of the custom type via crm.objects', async (t) => {
  const { hs, client } = await start(t);
  const schema = await client.crm.schemas.coreApi.create({
    name: 'pets',
    labels: { singular: 'Pet', plural: 'Pets' },
    requiredProperties: ['pet_name'],
    searchableProperties: ['pet_name'],
    primaryDisplayProperty: 'pet_name',
    secondaryDisplayProperties: ['species'],
    associatedObjects: ['CONTACT'],
    properties: [
      { name: 'pet_name', label: 'Name', type: ObjectTypePropertyCreateTypeEnum.String, fieldType: 'text' },
      { name: 'species', label: 'Species', type: ObjectTypePropertyCreateTypeEnum.String, fieldType: 'text' },
      { name: 'age', label: 'Age', type: ObjectTypePropertyCreateTypeEnum.Number, fieldType: 'number' },
    ],
  });
  assert.match(schema.objectTypeId ?? '', /^2-\d+$/);
  assert.equal(schema.fullyQualifiedName, `p${hs.portal.portalId}_pets`);
  assert.ok(schema.properties.some((p) => p.name === 'pet_name'));
  const byId = await client.crm.schemas.coreApi.getById(schema.objectTypeId ?? '');
  assert.equal(byId.name, 'pets');
  const byFqn = await client.crm.schemas.coreApi.getById(schema.fullyQualifiedName ?? '');
  assert.equal(byFqn.id, schema.id);
  const all = await client.crm.schemas.coreApi.getAll();
  assert.ok(all.results.some((s) => s.objectTypeId === schema.objectTypeId));
  const typeId = schema.objectTypeId ?? '';
  const rec = await client.crm.objects.basicApi.create(typeId, {
    properties: { pet_name: 'Rex', species: 'dog', age: '4' },
    associations: [],
  });
  const got = await client.crm.objects.basicApi.getById(typeId, rec.id, ['pet_name', 'age']);
  assert.equal(got.properties.pet_name, 'Rex');
  assert.equal(got.properties.age, '4');
  const page = await client.crm.objects.basicApi.getPage(`p${hs.portal.portalId}_pets`, 10);
  assert.deepEqual(
    page.results.map((r) => r.id),
    [rec.id],
  );
  assert.equal(hs.accounting.count('schemas.create'), 1);
});

// The client calls `/crm/v3/owners/` (trailing slash) while the spec path is `/crm/v3/owners`: HubSpot
// answers both (its own docs' examples used the trailing-slash form, e.g. hubspot-api-python#64), so the
// sandbox serves both too.
test('crm.owners.ownersApi and crm.pipelines reads', async (t) => {
  const { hs, client } = await start(t);
  const owners = await client.crm.owners.ownersApi.getPage();
  assert.equal(hs.accounting.count('owners.list'), 1);
  assert.ok(owners.results.length > 0);
  const first = owners.results[0]!;
  const byEmail = await client.crm.owners.ownersApi.getPage(first.email);
  assert.deepEqual(
    byEmail.results.map((o) => o.id),
    [first.id],
  );
  const one = await client.crm.owners.ownersApi.getById(Number(first.id));
  assert.equal(one.email, first.email);
  const byUser = await client.crm.owners.ownersApi.getById(first.userId ?? 0, 'userId');
  assert.equal(byUser.id, first.id);
  const pipelines = await client.crm.pipelines.pipelinesApi.getAll('deals');
  const def = pipelines.results.find((p) => p.id === 'default');
  assert.ok(def !== undefined && def.stages.length > 0);
  const pipeline = await client.crm.pipelines.pipelinesApi.getById('deals', 'default');
  assert.equal(pipeline.label, def.label);
  const stages = await client.crm.pipelines.pipelineStagesApi.getAll('deals', 'default');
  assert.equal(stages.results.length, def.stages.length);
  const stage = await client.crm.pipelines.pipelineStagesApi.getById('deals', 'default', def.stages[0]!.id);
  assert.equal(stage.id, def.stages[0]!.id);
  const tickets = await client.crm.pipelines.pipelinesApi.getAll('tickets');
  assert.ok(tickets.results.length > 0);
});
