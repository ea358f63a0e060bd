// Association labels renamed and deleted, and custom objects associated as HubSpot documents it:
// a custom object's association definitions (schema `associatedObjects`, or
// `POST /crm/v3/schemas/{objectType}/associations`) are the pair's association types, with ids the
// v4 labels list, createDefault and create take, and names v3 batch takes. Driven by the official
// client, unpatched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum as Category } from '@hubspot/api-client/lib/codegen/crm/associations/v4/models/AssociationSpec.js';
import { ObjectTypePropertyCreateTypeEnum } from '@hubspot/api-client/lib/codegen/crm/schemas/models/ObjectTypePropertyCreate.js';
import { startHubSpot } from './objects-helpers.ts';

async function client(t: Parameters<typeof startHubSpot>[0]) {
  const hs = await startHubSpot(t);
  return { hs, hubspot: new Client({ accessToken: hs.credentials.accessToken, basePath: hs.url }) };
}

const statusOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return (e as { code?: number }).code;
  }
};

test('client: a user-defined association label is renamed (PUT …/labels) and deleted (DELETE …/labels/{typeId})', async (t) => {
  const { hs, hubspot } = await client(t);
  const defs = hubspot.crm.associations.v4.schema.definitionsApi;
  const created = await defs.create('contacts', 'companies', {
    label: 'Billing contact',
    name: 'billing_contact',
    inverseLabel: 'Billed company',
  });
  const forward = created.results.find((r) => r.label === 'Billing contact');
  const back = created.results.find((r) => r.label === 'Billed company');
  assert.ok(forward && back);
  await defs.update('contacts', 'companies', {
    associationTypeId: forward.typeId,
    label: 'Invoice contact',
    inverseLabel: 'Invoiced company',
  });
  const renamed = await defs.getAll('contacts', 'companies');
  assert.ok(renamed.results.some((r) => r.typeId === forward.typeId && r.label === 'Invoice contact'));
  const inverse = await defs.getAll('companies', 'contacts');
  assert.ok(inverse.results.some((r) => r.typeId === back.typeId && r.label === 'Invoiced company'));

  // An association of that type goes with the label.
  const [contact] = hs.portal.records.list('0-1');
  const [company] = hs.portal.records.list('0-2');
  assert.ok(contact && company);
  await hubspot.crm.associations.v4.basicApi.create('contacts', contact.id, 'companies', company.id, [
    { associationCategory: Category.UserDefined, associationTypeId: forward.typeId },
  ]);
  await defs.remove('contacts', 'companies', forward.typeId);
  const after = await defs.getAll('contacts', 'companies');
  assert.ok(!after.results.some((r) => r.typeId === forward.typeId));
  assert.ok(!(await defs.getAll('companies', 'contacts')).results.some((r) => r.typeId === back.typeId));
  const links = await hubspot.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'companies');
  assert.ok(
    links.results.every((l) => l.associationTypes.every((a) => a.typeId !== forward.typeId)),
    JSON.stringify(links.results),
  );
  // HubSpot's own types cannot be renamed or deleted; an unknown id is not found.
  assert.equal(
    await statusOf(defs.update('contacts', 'companies', { associationTypeId: 1, label: 'Boss' })),
    404,
  );
  assert.equal(await statusOf(defs.remove('contacts', 'companies', 279)), 404);
  assert.equal(await statusOf(defs.remove('contacts', 'companies', forward.typeId)), 404);
});

test('client: the seeded custom object cars associates with contacts and companies by its definitions', async (t) => {
  const { hs, hubspot } = await client(t);
  const schema = await hubspot.crm.schemas.coreApi.getById('p_cars');
  const cars = String(schema.objectTypeId);
  const toContacts = schema.associations.find(
    (a) => a.fromObjectTypeId === schema.objectTypeId && a.toObjectTypeId === '0-1',
  );
  const toCompanies = schema.associations.find(
    (a) => a.fromObjectTypeId === schema.objectTypeId && a.toObjectTypeId === '0-2',
  );
  assert.ok(toContacts && toCompanies, JSON.stringify(schema.associations));

  // The labels list names the definition's type, by its id.
  const labels = await hubspot.crm.associations.v4.schema.definitionsApi.getAll(cars, 'contacts');
  assert.deepEqual(
    labels.results.map((r) => [r.category, r.typeId, r.label ?? null]),
    [['USER_DEFINED', Number(toContacts.id), null]],
  );
  const back = await hubspot.crm.associations.v4.schema.definitionsApi.getAll('contacts', cars);
  assert.equal(back.results.length, 1);
  assert.equal(back.results[0]?.category, 'USER_DEFINED');

  const [car, car2, car3] = hs.portal.records.list(cars);
  const [contact, contact2] = hs.portal.records.list('0-1');
  const [company] = hs.portal.records.list('0-2');
  assert.ok(car && car2 && car3 && contact && contact2 && company);

  // createDefault, v4 basic create with the definition's id, v4 batch create, v3 batch by name.
  const dflt = await hubspot.crm.associations.v4.basicApi.createDefault(cars, car.id, 'contacts', contact.id);
  assert.equal(dflt.results[0]?.associationSpec.associationTypeId, Number(toContacts.id));
  await hubspot.crm.associations.v4.basicApi.create(cars, car2.id, 'contacts', contact2.id, [
    { associationCategory: Category.UserDefined, associationTypeId: Number(toContacts.id) },
  ]);
  const batch = await hubspot.crm.associations.v4.batchApi.create(cars, 'companies', {
    inputs: [
      {
        _from: { id: car.id },
        to: { id: company.id },
        types: [{ associationCategory: Category.UserDefined, associationTypeId: Number(toCompanies.id) }],
      },
    ],
  });
  assert.equal(batch.results.length, 1);
  const v3 = await hubspot.crm.associations.batchApi.create(cars, 'contacts', {
    inputs: [{ _from: { id: car3.id }, to: { id: contact.id }, type: String(toContacts.name) }],
  });
  assert.equal(v3.results.length, 1);
  assert.equal(v3.results[0]?.type, toContacts.name);

  // Read back both ways.
  const fromCar = await hubspot.crm.associations.v4.basicApi.getPage(cars, car.id, 'contacts');
  assert.deepEqual(
    fromCar.results.map((r) => [r.toObjectId, r.associationTypes.map((a) => a.typeId)]),
    [[contact.id, [Number(toContacts.id)]]],
  );
  const fromContact = await hubspot.crm.associations.v4.basicApi.getPage('contacts', contact.id, cars);
  assert.deepEqual(fromContact.results.map((r) => String(r.toObjectId)).sort(), [car.id, car3.id].sort());
  const fromCompany = await hubspot.crm.associations.v4.basicApi.getPage('companies', company.id, cars);
  assert.deepEqual(
    fromCompany.results.map((r) => String(r.toObjectId)),
    [car.id],
  );
});

test('client: a new schema’s associatedObjects and a created association definition make types with ids', async (t) => {
  const { hs, hubspot } = await client(t);
  const boats = await hubspot.crm.schemas.coreApi.create({
    name: 'boats',
    labels: { singular: 'Boat', plural: 'Boats' },
    primaryDisplayProperty: 'hull',
    requiredProperties: ['hull'],
    properties: [
      {
        name: 'hull',
        label: 'Hull number',
        type: ObjectTypePropertyCreateTypeEnum.String,
        fieldType: 'text',
      },
    ],
    associatedObjects: ['CONTACT'],
  });
  const boatType = String(boats.objectTypeId);
  const own = boats.associations.find((a) => a.toObjectTypeId === '0-1');
  assert.ok(own);
  const listed = await hubspot.crm.associations.v4.schema.definitionsApi.getAll(boatType, 'contacts');
  assert.deepEqual(
    listed.results.map((r) => [r.category, r.typeId]),
    [['USER_DEFINED', Number(own.id)]],
  );
  const def = await hubspot.crm.schemas.coreApi.createAssociation(boatType, {
    fromObjectTypeId: boatType,
    toObjectTypeId: '0-2',
    name: 'boat_to_company',
  });
  const toCompanies = await hubspot.crm.associations.v4.schema.definitionsApi.getAll(boatType, 'companies');
  assert.deepEqual(
    toCompanies.results.map((r) => [r.category, r.typeId]),
    [['USER_DEFINED', Number(def.id)]],
  );
  const boat = await hubspot.crm.objects.basicApi.create(boatType, {
    properties: { hull: 'H-1' },
    associations: [],
  });
  const [company] = hs.portal.records.list('0-2');
  assert.ok(company);
  const made = await hubspot.crm.associations.v4.basicApi.createDefault(
    boatType,
    boat.id,
    'companies',
    company.id,
  );
  assert.equal(made.results[0]?.associationSpec.associationTypeId, Number(def.id));
  const v3 = await hubspot.crm.associations.batchApi.create(boatType, 'companies', {
    inputs: [{ _from: { id: boat.id }, to: { id: company.id }, type: 'boat_to_company' }],
  });
  assert.equal(v3.results[0]?.type, 'boat_to_company');
  // Deleting the definition deletes its types.
  await hubspot.crm.schemas.coreApi.archiveAssociation(boatType, def.id);
  const gone = await hubspot.crm.associations.v4.schema.definitionsApi.getAll(boatType, 'companies');
  assert.deepEqual(gone.results, []);
});
