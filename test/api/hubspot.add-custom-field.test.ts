import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}
interface Created {
  data: Record<string, unknown>;
  message: string;
}

function addField(s: Stack, object: string, data: Record<string, unknown>) {
  return s.api<Created & ErrorBody>(`/v1/object/add_custom_field/${object}`, {
    token: s.tokens.hubspot,
    body: { data },
  });
}

function groupOf(s: Stack, typeRef: string): string {
  const type = s.hs.portal.types.resolve(typeRef);
  assert.ok(type);
  const group = s.hs.portal.properties.listGroups(type.objectTypeId)[0]?.name;
  assert.ok(group);
  return group;
}

/** The fields of HubSpot's property creation result. */
const RESULT_FIELDS = [
  'archived',
  'calculated',
  'createdAt',
  'createdUserId',
  'description',
  'displayOrder',
  'externalOptions',
  'fieldType',
  'formField',
  'groupName',
  'hasUniqueValue',
  'hidden',
  'label',
  'modificationMetadata',
  'name',
  'options',
  'type',
  'updatedAt',
  'updatedUserId',
];

test('a property is created on a standard object and is readable by get at once', async (t) => {
  const s = await startStack(t);
  const groupName = groupOf(s, 'companies');
  const answer = await addField(s, 'companies', {
    name: 'loyalty_tier',
    label: 'Loyalty tier',
    type: 'enumeration',
    fieldType: 'select',
    groupName,
    options: [
      { label: 'Gold', value: 'gold' },
      { label: 'Silver', value: 'silver' },
    ],
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  for (const key of RESULT_FIELDS) assert.ok(key in answer.body.data, `data.${key}`);
  assert.equal(answer.body.data['name'], 'loyalty_tier');
  assert.equal(answer.body.data['fieldType'], 'select');
  assert.equal((answer.body.data['options'] as unknown[]).length, 2);
  assert.match(answer.body.message, /loyalty_tier.*companies/);
  assert.ok(s.hs.portal.properties.get('0-2', 'loyalty_tier'));

  // The cached property list was dropped, so the new name is known to get straight away.
  const [company] = s.hs.portal.records.list('0-2').map((r) => r.id);
  const read = await s.api<{ data: Array<{ properties: Record<string, unknown> } | null> }>(
    '/v1/object/get/companies',
    { token: s.tokens.hubspot, body: { data: { ids: [company], fields: ['loyalty_tier'] } } },
  );
  assert.equal(read.status, 200, read.text.slice(0, 300));
  assert.equal(read.body.data[0]?.properties['loyalty_tier'], null);
});

test('a property on a custom object named by its plain name', async (t) => {
  const s = await startStack(t);
  const answer = await addField(s, 'cars', {
    name: 'mileage',
    label: 'Mileage',
    type: 'number',
    fieldType: 'number',
    groupName: groupOf(s, 'p_cars'),
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data['type'], 'number');
  const type = s.hs.portal.types.resolve('p_cars');
  assert.ok(type && s.hs.portal.properties.get(type.objectTypeId, 'mileage'));
});

test('checks before HubSpot: required attributes, type, type/fieldType pair, options, formula', async (t) => {
  const s = await startStack(t);
  const groupName = groupOf(s, 'contacts');
  s.hs.accounting.reset();

  const missing = await addField(s, 'contacts', { name: 'x1', label: 'X', type: 'string' });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'invalid_field_definition');
  assert.deepEqual(
    missing.body.error.details.map((d) => d['path']),
    ['/data/fieldType', '/data/groupName'],
  );
  // name, label and type are required by the request schema itself.
  for (const key of ['name', 'label', 'type']) {
    const body: Record<string, unknown> = {
      name: 'x2',
      label: 'X',
      type: 'string',
      fieldType: 'text',
      groupName,
    };
    delete body[key];
    const answer = await addField(s, 'contacts', body);
    assert.equal(answer.status, 400, key);
    assert.equal(answer.body.error.code, 'invalid_body', key);
  }

  const pair = await addField(s, 'contacts', {
    name: 'x3',
    label: 'X',
    type: 'number',
    fieldType: 'text',
    groupName,
  });
  assert.equal(pair.status, 400);
  assert.equal(pair.body.error.code, 'invalid_field_definition');
  assert.deepEqual(pair.body.error.details[0]?.['allowed_field_types'], ['number', 'calculation_equation']);
  assert.match(pair.body.error.message, /Allowed fieldTypes for number: number, calculation_equation/);

  const type = await addField(s, 'contacts', {
    name: 'x4',
    label: 'X',
    type: 'text',
    fieldType: 'text',
    groupName,
  });
  assert.equal(type.status, 400);
  assert.ok(Array.isArray(type.body.error.details[0]?.['allowed_types']));

  const options = await addField(s, 'contacts', {
    name: 'x5',
    label: 'X',
    type: 'enumeration',
    fieldType: 'radio',
    groupName,
  });
  assert.equal(options.status, 400);
  assert.equal(options.body.error.details[0]?.['path'], '/data/options');

  const formula = await addField(s, 'contacts', {
    name: 'x6',
    label: 'X',
    type: 'number',
    fieldType: 'calculation_equation',
    groupName,
  });
  assert.equal(formula.status, 400);
  assert.equal(formula.body.error.details[0]?.['path'], '/data/calculationFormula');

  assert.equal(s.hs.accounting.count('properties'), 0, 'nothing reached HubSpot');
});

test("HubSpot's own refusals: an existing name is 409, an unknown group 400, both with HubSpot's body", async (t) => {
  const s = await startStack(t);
  const groupName = groupOf(s, 'contacts');
  const exists = await addField(s, 'contacts', {
    name: 'firstname',
    label: 'First name',
    type: 'string',
    fieldType: 'text',
    groupName,
  });
  assert.equal(exists.status, 409);
  assert.equal(exists.body.error.code, 'field_already_exists');
  const crm = exists.body.error.details[0]?.['crm_error'] as Record<string, unknown>;
  assert.equal(crm['category'], 'OBJECT_ALREADY_EXISTS');
  assert.match(exists.body.error.message, /firstname/);

  const group = await addField(s, 'contacts', {
    name: 'favourite_colour',
    label: 'Favourite colour',
    type: 'string',
    fieldType: 'text',
    groupName: 'no_such_group',
  });
  assert.equal(group.status, 400);
  assert.equal(group.body.error.code, 'invalid_field_definition');
  assert.match(group.body.error.message, /no_such_group/);
  assert.equal(group.body.error.details[0]?.['status'], 400);
});

test('add custom field on unsupported and unknown objects', async (t) => {
  const s = await startStack(t);
  const definition = { name: 'x', label: 'X', type: 'string', fieldType: 'text', groupName: 'g' };
  const owners = await addField(s, 'owners', definition);
  assert.equal(owners.status, 422);
  assert.equal(owners.body.error.code, 'object_not_supported');
  const unknown = await addField(s, 'spaceships', definition);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'unknown_object');
});
