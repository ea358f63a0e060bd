import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

async function start(t: { after: (fn: () => Promise<void>) => void }) {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hs.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${hs.credentials.privateAppToken}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
  };
  return { hs, call };
}

const carEgg = {
  name: 'vessels',
  labels: { singular: 'Car', plural: 'Cars' },
  description: 'Cars on the lot',
  requiredProperties: ['vin'],
  searchableProperties: ['vin', 'model'],
  primaryDisplayProperty: 'model',
  secondaryDisplayProperties: ['vin'],
  associatedObjects: ['CONTACT', '0-3'],
  properties: [
    { name: 'vin', label: 'VIN', type: 'string', fieldType: 'text', hasUniqueValue: true },
    { name: 'model', label: 'Model' },
    { name: 'year', label: 'Year', type: 'number', fieldType: 'number' },
    {
      name: 'condition',
      label: 'Condition',
      type: 'enumeration',
      fieldType: 'select',
      options: [
        { label: 'New', value: 'new' },
        { label: 'Used', value: 'used' },
      ],
    },
  ],
};

test('create answers 201 with ids, fully qualified name and full property models', async (t) => {
  const { hs, call } = await start(t);
  const created = await call('POST', '/crm-object-schemas/v3/schemas', carEgg);
  assert.equal(created.status, 201);
  const s = created.body;
  assert.match(String(s.objectTypeId), /^2-\d+$/);
  assert.equal(s.objectTypeId, `2-${s.id}`);
  assert.equal(s.fullyQualifiedName, `p${hs.portal.portalId}_vessels`);
  assert.equal(s.name, 'vessels');
  assert.equal(s.metaType, 'PORTAL_SPECIFIC');
  assert.deepEqual(s.requiredProperties, ['vin']);
  assert.equal(s.primaryDisplayProperty, 'model');
  assert.equal(typeof s.createdAt, 'string');
  const props = s.properties as {
    name: string;
    type: string;
    fieldType: string;
    groupName: string;
    options: unknown[];
  }[];
  const model = props.find((p) => p.name === 'model');
  assert.equal(model?.type, 'string');
  assert.equal(model?.fieldType, 'text');
  assert.ok(props.some((p) => p.name === 'hs_object_id'));
  assert.equal(props.find((p) => p.name === 'condition')?.options.length, 2);
  const assocTargets = (s.associations as { toObjectTypeId: string }[]).map((a) => a.toObjectTypeId);
  assert.ok(assocTargets.includes('0-1') && assocTargets.includes('0-3'));
});

test('get by type id, fully qualified name, p_ short name, under both paths; list holds custom types only', async (t) => {
  const { hs, call } = await start(t);
  const id = (await call('POST', '/crm/v3/schemas', carEgg)).body.objectTypeId as string;
  for (const ref of [id, `p${hs.portal.portalId}_vessels`, 'p_vessels']) {
    for (const prefix of ['/crm/v3/schemas', '/crm-object-schemas/v3/schemas']) {
      const r = await call('GET', `${prefix}/${ref}`);
      assert.equal(r.status, 200, `${prefix}/${ref}`);
      assert.equal(r.body.objectTypeId, id);
    }
  }
  assert.equal((await call('GET', '/crm/v3/schemas/unknown_thing')).status, 404);
  const contact = await call('GET', '/crm/v3/schemas/CONTACT');
  assert.equal(contact.body.objectTypeId, '0-1');
  assert.equal(contact.body.metaType, 'HUBSPOT');
  const list = await call('GET', '/crm-object-schemas/v3/schemas');
  const ids = (list.body.results as { objectTypeId: string }[]).map((r) => r.objectTypeId);
  assert.ok(ids.includes(id));
  assert.ok(ids.every((x) => x.startsWith('2-')));
  const lean = await call('GET', `/crm/v3/schemas/${id}?includePropertyDefinitions=false`);
  assert.deepEqual(lean.body.properties, []);
});

test('records of the new type work through the Objects API, with its required properties', async (t) => {
  const { call } = await start(t);
  const id = (await call('POST', '/crm/v3/schemas', carEgg)).body.objectTypeId as string;
  const rec = await call('POST', `/crm/v3/objects/${id}`, {
    properties: { vin: 'VIN123', model: 'Roadster', year: '1960' },
  });
  assert.equal(rec.status, 201);
  const props = rec.body.properties as Record<string, string>;
  assert.equal(props.vin, 'VIN123');
  assert.ok(props.hs_object_id);
  const got = await call('GET', `/crm/v3/objects/p_vessels/${rec.body.id}?properties=model`);
  assert.equal((got.body.properties as Record<string, string>).model, 'Roadster');
  const missing = await call('POST', `/crm/v3/objects/${id}`, { properties: { model: 'No VIN' } });
  assert.equal(missing.status, 400);
});

test('create validation: required attributes, names, references, property rules, 409 for a taken name', async (t) => {
  const { call } = await start(t);
  const missing = await call('POST', '/crm/v3/schemas', { name: 'x' });
  assert.equal(missing.status, 400);
  assert.match(
    String(missing.body.message),
    /Cannot build ObjectSchemaEgg, some of required attributes are not set \[associatedObjects, labels, properties, requiredProperties\]/,
  );
  const badName = await call('POST', '/crm/v3/schemas', { ...carEgg, name: '9cars' });
  assert.equal(badName.status, 400);
  const badRef = await call('POST', '/crm/v3/schemas', { ...carEgg, requiredProperties: ['nope'] });
  assert.equal(badRef.status, 400);
  assert.match(String(badRef.body.message), /requiredProperties.*nope/);
  const badPair = await call('POST', '/crm/v3/schemas', {
    ...carEgg,
    properties: [...carEgg.properties, { name: 'when', label: 'When', type: 'date', fieldType: 'text' }],
  });
  assert.equal(badPair.status, 400);
  const badAssoc = await call('POST', '/crm/v3/schemas', { ...carEgg, associatedObjects: ['unicorns'] });
  assert.equal(badAssoc.status, 400);
  assert.equal((await call('POST', '/crm/v3/schemas', carEgg)).status, 201);
  const taken = await call('POST', '/crm/v3/schemas', carEgg);
  assert.equal(taken.status, 409);
  assert.equal(taken.body.category, 'OBJECT_ALREADY_EXISTS');
});

test('update answers the ObjectTypeDefinition; archive refuses while records exist, then purge', async (t) => {
  const { call } = await start(t);
  const id = (await call('POST', '/crm/v3/schemas', carEgg)).body.objectTypeId as string;
  const patched = await call('PATCH', `/crm/v3/schemas/${id}`, {
    labels: { singular: 'Automobile', plural: 'Automobiles' },
    requiredProperties: ['vin', 'model'],
  });
  assert.equal(patched.status, 200);
  assert.equal((patched.body.labels as { singular: string }).singular, 'Automobile');
  assert.deepEqual(patched.body.requiredProperties, ['vin', 'model']);
  assert.equal(patched.body.properties, undefined);
  assert.equal(
    (await call('PATCH', `/crm/v3/schemas/${id}`, { searchableProperties: ['nope'] })).status,
    400,
  );
  const rec = await call('POST', `/crm/v3/objects/${id}`, { properties: { vin: 'V1', model: 'M' } });
  assert.equal((await call('DELETE', `/crm/v3/schemas/${id}`)).status, 400);
  await call('DELETE', `/crm/v3/objects/${id}/${rec.body.id}`);
  assert.equal((await call('DELETE', `/crm/v3/schemas/${id}`)).status, 204);
  const archivedList = await call('GET', '/crm/v3/schemas?archived=true');
  assert.ok((archivedList.body.results as { objectTypeId: string }[]).some((r) => r.objectTypeId === id));
  assert.equal((await call('DELETE', `/crm/v3/schemas/${id}?archived=true`)).status, 204);
  assert.equal((await call('GET', `/crm/v3/schemas/${id}`)).status, 404);
});

test('association definitions can be added and removed', async (t) => {
  const { call } = await start(t);
  const id = (await call('POST', '/crm/v3/schemas', carEgg)).body.objectTypeId as string;
  const added = await call('POST', `/crm-object-schemas/v3/schemas/${id}/associations`, {
    fromObjectTypeId: id,
    toObjectTypeId: '0-2',
    name: 'car_to_company',
  });
  assert.equal(added.status, 201);
  assert.equal(added.body.toObjectTypeId, '0-2');
  const del = await call('DELETE', `/crm-object-schemas/v3/schemas/${id}/associations/${added.body.id}`);
  assert.equal(del.status, 204);
  const after = await call('GET', `/crm/v3/schemas/${id}`);
  assert.ok(!(after.body.associations as { id: string }[]).some((a) => a.id === added.body.id));
});
