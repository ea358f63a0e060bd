// Describe on a HubSpot connection: the account's object types, and one type's properties.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface Global {
  data: { objects: Array<{ name: string; objectTypeId: string; custom: boolean }> };
}
interface One {
  data: {
    name: string;
    objectTypeId: string;
    custom: boolean;
    properties: Array<{ name: string; type: string; fieldType: string; options?: unknown[] }>;
  };
}

test('HubSpot describe: object types, one type with its properties, and an unknown type', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;

  const all = await s.api<Global>('/v1/describe', { token });
  assert.equal(all.status, 200);
  const contacts = all.body.data.objects.find((o) => o.name === 'contacts');
  assert.deepEqual(contacts, { name: 'contacts', objectTypeId: '0-1', custom: false });
  assert.ok(all.body.data.objects.some((o) => o.name === 'deals' && o.objectTypeId === '0-3'));

  const one = await s.api<One>('/v1/describe/Contact', { token });
  assert.equal(one.status, 200);
  assert.equal(one.body.data.name, 'contacts', 'singular and any case name the same type');
  assert.equal(one.body.data.objectTypeId, '0-1');
  const email = one.body.data.properties.find((p) => p.name === 'email');
  assert.equal(email?.type, 'string');
  const stage = one.body.data.properties.find((p) => p.name === 'lifecyclestage');
  assert.equal(stage?.type, 'enumeration');
  assert.ok((stage?.options?.length ?? 0) > 0, 'enumeration options as HubSpot gives them');
  // Exactly what the sandbox's properties API answers: nothing added, nothing dropped.
  assert.equal(one.body.data.properties.length, s.hs.portal.properties.list('0-1').length);

  const unknown = await s.api<{ error: { code: string; message: string } }>('/v1/describe/spaceships', {
    token,
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'unknown_object');
  assert.match(unknown.body.error.message, /contacts/);
});

test('HubSpot describe lists a custom object the account has, and describes it', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;
  const created = await s.api('/v1/proxy/crm-object-schemas/v3/schemas', {
    token,
    body: {
      name: 'boats',
      labels: { singular: 'Boat', plural: 'Boats' },
      primaryDisplayProperty: 'model',
      requiredProperties: ['model'],
      properties: [{ name: 'model', label: 'Model', type: 'string', fieldType: 'text' }],
      associatedObjects: ['CONTACT'],
    },
  });
  assert.equal(created.status, 201, created.text);
  const all = await s.api<Global>('/v1/describe', { token });
  const boats = all.body.data.objects.find((o) => o.name === 'boats');
  assert.equal(boats?.custom, true);
  const one = await s.api<One>('/v1/describe/boats', { token });
  assert.equal(one.status, 200);
  assert.equal(one.body.data.custom, true);
  assert.ok(one.body.data.properties.some((p) => p.name === 'model'));
});
