import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import type { ErrorBody, WriteAnswer } from './sf-writes-helpers.ts';

interface FieldAnswer {
  data: { id: string; success: boolean; errors: unknown[] };
  msg: string;
}

test('add custom field: Tooling creation, __c added, FLS for exactly two profiles, usable in the next request', async (t) => {
  const s = await startStack(t);
  // Warm the describe cache so a stale one would hide the new field.
  await s.api('/v1/describe/Account');
  const answer = await s.api<FieldAnswer>('/v1/object/add_custom_field/account', {
    body: { data: { name: 'Tier', label: 'Tier', type: 'Text', length: 40, description: 'Customer tier' } },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.success, true);
  assert.ok(answer.body.data.id);
  assert.match(answer.body.msg, /Account\.Tier__c/);

  const grants = s.sf.org.query(
    "SELECT Parent.Profile.Name, PermissionsRead, PermissionsEdit FROM FieldPermissions WHERE Field = 'Account.Tier__c'",
    {},
  ).records as unknown as Array<{
    Parent: { Profile: { Name: string } };
    PermissionsRead: boolean;
    PermissionsEdit: boolean;
  }>;
  assert.deepEqual(grants.map((g) => [g.Parent.Profile.Name, g.PermissionsRead, g.PermissionsEdit]).sort(), [
    ['Standard User', true, true],
    ['System Administrator', true, true],
  ]);

  const insert = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Tiered', tier__c: 'Gold' }] },
  });
  assert.equal(insert.status, 200, insert.text);
  assert.equal(insert.body.data[0]?.success, true);
});

test('add custom field: a Picklist with values, and checks before anything is sent', async (t) => {
  const s = await startStack(t);
  const picklist = await s.api<FieldAnswer>('/v1/object/add_custom_field/Account', {
    body: {
      data: {
        name: 'Level__c',
        label: 'Level',
        type: 'Picklist',
        valueSet: {
          restricted: true,
          valueSetDefinition: {
            sorted: false,
            value: [
              { fullName: 'High', default: true },
              { fullName: 'Low', default: false },
            ],
          },
        },
      },
    },
  });
  assert.equal(picklist.status, 200, picklist.text);
  const describe = await s.api<{
    data: { fields: Array<{ name: string; picklistValues: Array<{ value: string }> }> };
  }>('/v1/describe/Account');
  const level = describe.body.data.fields.find((f) => f.name === 'Level__c');
  assert.deepEqual(
    level?.picklistValues.map((v) => v.value),
    ['High', 'Low'],
  );

  s.sf.accounting.reset();
  for (const [data, path] of [
    [{ name: 'NoLength', label: 'x', type: 'Text' }, '/data/length'],
    [{ name: 'NoValues', label: 'x', type: 'Picklist' }, '/data/valueSet'],
  ] as const) {
    const refused = await s.api<ErrorBody>('/v1/object/add_custom_field/Account', { body: { data } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'invalid_field_definition');
    assert.equal(refused.body.error.details[0]?.['path'], path);
  }
  const missingLabel = await s.api<ErrorBody>('/v1/object/add_custom_field/Account', {
    body: { data: { name: 'X', type: 'Text', length: 5 } },
  });
  assert.equal(missingLabel.status, 400);
  assert.equal(s.sf.accounting.count('tooling.customField.create'), 0);

  // Salesforce's own refusal (the field exists already) is a 400 carrying its message.
  const duplicate = await s.api<ErrorBody>('/v1/object/add_custom_field/Account', {
    body: { data: { name: 'Level', label: 'Level', type: 'Text', length: 10 } },
  });
  assert.equal(duplicate.status, 400, duplicate.text);
  assert.equal(duplicate.body.error.code, 'invalid_field_definition');
  assert.ok(duplicate.body.error.details[0]?.['crm_error']);
});

test('add custom field on a HubSpot connection answers HubSpot’s shape: {data, message}', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<{ data: { name: string }; message?: string; msg?: string }>(
    '/v1/object/add_custom_field/companies',
    {
      token: s.tokens.hubspot,
      body: {
        data: {
          name: 'tier_level',
          label: 'Tier level',
          type: 'string',
          fieldType: 'text',
          groupName: 'companyinformation',
        },
      },
    },
  );
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.name, 'tier_level');
  assert.equal(typeof answer.body.message, 'string');
  assert.equal(answer.body.msg, undefined);
});
