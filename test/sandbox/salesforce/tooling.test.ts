import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SalesforceSandbox, startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';

type T = { after: (fn: () => Promise<void>) => void };

async function start(t: T) {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  return sf;
}

async function call(sf: SalesforceSandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sf.url}/services/data/v62.0${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sf.credentials.accessToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

const createField = (sf: SalesforceSandbox, fullName: string, metadata: Record<string, unknown>) =>
  call(sf, 'POST', '/tooling/sobjects/CustomField', { FullName: fullName, Metadata: metadata });

type Describe = { fields: Record<string, unknown>[] };
const describeField = async (sf: SalesforceSandbox, object: string, name: string) =>
  ((await call(sf, 'GET', `/sobjects/${object}/describe`)).body as Describe).fields.find(
    (f) => f.name === name,
  );

test('CustomField creation answers 201 {id, success, errors, warnings, infos}; the field is in describe', async (t) => {
  const sf = await start(t);
  const res = await createField(sf, 'Account.Tier__c', {
    label: 'Tier',
    type: 'Picklist',
    valueSet: {
      restricted: true,
      valueSetDefinition: {
        sorted: false,
        value: [
          { fullName: 'Gold', default: true, label: 'Gold' },
          { fullName: 'Silver', default: false, label: 'Silver' },
        ],
      },
    },
  });
  assert.equal(res.status, 201);
  const body = res.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['errors', 'id', 'infos', 'success', 'warnings']);
  assert.match(String(body.id), /^00N[A-Za-z0-9]{15}$/);
  assert.equal(body.success, true);
  const f = await describeField(sf, 'Account', 'Tier__c');
  assert.equal(f?.type, 'picklist');
  assert.equal(f?.custom, true);
  assert.equal(f?.restrictedPicklist, true);
  assert.deepEqual(
    ((f?.picklistValues ?? []) as { value: string; defaultValue: boolean }[]).map((p) => [
      p.value,
      p.defaultValue,
    ]),
    [
      ['Gold', true],
      ['Silver', false],
    ],
  );
});

test('describe type, length and flags per Metadata type', async (t) => {
  const sf = await start(t);
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'Code__c',
      { type: 'Text', label: 'Code', length: 32, externalId: true, unique: true },
      {
        type: 'string',
        length: 32,
        externalId: true,
        unique: true,
        nillable: true,
        createable: true,
        filterable: true,
      },
    ],
    [
      'Notes__c',
      { type: 'LongTextArea', label: 'Notes', length: 32768, visibleLines: 5 },
      { type: 'textarea', length: 32768, filterable: false, extraTypeInfo: 'plaintextarea' },
    ],
    [
      'Score__c',
      { type: 'Number', label: 'Score', precision: 5, scale: 2 },
      { type: 'double', precision: 5, scale: 2 },
    ],
    [
      'Paid__c',
      { type: 'Currency', label: 'Paid', precision: 16, scale: 2 },
      { type: 'currency', precision: 16, scale: 2 },
    ],
    [
      'Rate__c',
      { type: 'Percent', label: 'Rate', precision: 3, scale: 0 },
      { type: 'percent', precision: 3, scale: 0 },
    ],
    [
      'Vip__c',
      { type: 'Checkbox', label: 'VIP', defaultValue: 'false' },
      { type: 'boolean', nillable: false, defaultValue: false },
    ],
    ['Contact_Email__c', { type: 'Email', label: 'Contact Email' }, { type: 'email', length: 80 }],
    ['Hotline__c', { type: 'Phone', label: 'Hotline' }, { type: 'phone', length: 40 }],
    ['Site__c', { type: 'Url', label: 'Site' }, { type: 'url', length: 255 }],
    ['Signed__c', { type: 'Date', label: 'Signed' }, { type: 'date' }],
    ['Synced__c', { type: 'DateTime', label: 'Synced' }, { type: 'datetime' }],
    ['Summary__c', { type: 'TextArea', label: 'Summary' }, { type: 'textarea', length: 255 }],
  ];
  for (const [name, metadata, expected] of cases) {
    const res = await createField(sf, `Account.${name}`, metadata);
    assert.equal(res.status, 201, `${name}: ${JSON.stringify(res.body)}`);
    const f = await describeField(sf, 'Account', name);
    for (const [k, v] of Object.entries(expected)) assert.deepEqual(f?.[k], v, `${name}.${k}`);
  }
});

test('per-type validation gives the real error codes and messages', async (t) => {
  const sf = await start(t);
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    [
      'Flag__c',
      { type: 'Checkbox', label: 'Flag' },
      'FIELD_INTEGRITY_EXCEPTION',
      /^Must specify 'defaultValue' for a CustomField of type Checkbox$/,
    ],
    [
      'Code__c',
      { type: 'Text', label: 'Code' },
      'FIELD_INTEGRITY_EXCEPTION',
      /^Must specify 'length' for a CustomField of type Text$/,
    ],
    [
      'Code__c',
      { type: 'Text', label: 'Code', length: 256 },
      'FIELD_INTEGRITY_EXCEPTION',
      /Length must be between 1 and 255/,
    ],
    ['N__c', { type: 'Number', label: 'N' }, 'FIELD_INTEGRITY_EXCEPTION', /'precision'/],
    [
      'N__c',
      { type: 'Number', label: 'N', precision: 19, scale: 0 },
      'FIELD_INTEGRITY_EXCEPTION',
      /Precision must be between 1 and 18/,
    ],
    ['N__c', { type: 'Number', label: 'N', precision: 4, scale: 5 }, 'FIELD_INTEGRITY_EXCEPTION', /Scale/],
    ['P__c', { type: 'Picklist', label: 'P' }, 'FIELD_INTEGRITY_EXCEPTION', /'valueSet'/],
    [
      'L__c',
      { type: 'LongTextArea', label: 'L', length: 1000 },
      'FIELD_INTEGRITY_EXCEPTION',
      /'visibleLines'/,
    ],
    ['X__c', { type: 'Hologram', label: 'X' }, 'JSON_PARSER_ERROR', /Hologram/],
    ['X__c', { type: 'Text', length: 10 }, 'REQUIRED_FIELD_MISSING', /label/],
  ];
  for (const [name, metadata, code, message] of cases) {
    const res = await createField(sf, `Account.${name}`, metadata);
    assert.equal(res.status, 400, JSON.stringify(metadata));
    const [e] = res.body as { errorCode: string; message: string }[];
    assert.equal(e?.errorCode, code, JSON.stringify(metadata));
    assert.match(e?.message ?? '', message);
  }
  const noSuffix = await createField(sf, 'Account.Plain', { type: 'Text', label: 'Plain', length: 10 });
  assert.equal(noSuffix.status, 400);
  const once = await createField(sf, 'Account.Twice__c', { type: 'Text', label: 'Twice', length: 10 });
  assert.equal(once.status, 201);
  const twice = await createField(sf, 'Account.Twice__c', { type: 'Text', label: 'Twice', length: 10 });
  assert.equal(twice.status, 400);
  assert.equal((twice.body as { errorCode: string }[])[0]?.errorCode, 'DUPLICATE_DEVELOPER_NAME');
  const noObject = await createField(sf, 'Nope__c.Foo__c', { type: 'Text', label: 'Foo', length: 10 });
  assert.equal(noObject.status, 400);
});

test('a created field can be written and queried through the data API', async (t) => {
  const sf = await start(t);
  assert.equal(
    (await createField(sf, 'Account.Score__c', { type: 'Number', label: 'Score', precision: 5, scale: 2 }))
      .status,
    201,
  );
  const created = await call(sf, 'POST', '/sobjects/Account', { Name: 'Scored', Score__c: 12.345 });
  assert.equal(created.status, 201);
  const id = (created.body as { id: string }).id;
  const q = await call(
    sf,
    'GET',
    `/query?q=${encodeURIComponent(`SELECT Score__c FROM Account WHERE Id = '${id}'`)}`,
  );
  assert.equal((q.body as { records: { Score__c: number }[] }).records[0]?.Score__c, 12.35);
});

test('Tooling query over CustomField and EntityDefinition; GET by id returns the Metadata', async (t) => {
  const sf = await start(t);
  const id = (
    (
      await createField(sf, 'Account.Region__c', {
        type: 'Text',
        label: 'Region',
        length: 20,
        description: 'Sales region',
      })
    ).body as { id: string }
  ).id;
  const q = await call(
    sf,
    'GET',
    `/tooling/query?q=${encodeURIComponent("SELECT Id, DeveloperName, TableEnumOrId FROM CustomField WHERE TableEnumOrId = 'Account'")}`,
  );
  assert.equal(q.status, 200);
  const body = q.body as {
    size: number;
    totalSize: number;
    done: boolean;
    entityTypeName: string;
    records: Record<string, unknown>[];
  };
  assert.equal(body.done, true);
  assert.equal(body.entityTypeName, 'CustomField');
  assert.equal(body.size, body.records.length);
  const row = body.records.find((r) => r.DeveloperName === 'Region');
  assert.equal(row?.Id, id);
  assert.deepEqual(row?.attributes, {
    type: 'CustomField',
    url: `/services/data/v62.0/tooling/sobjects/CustomField/${id}`,
  });
  // Seeded custom fields are there too, and none of another object.
  assert.ok(body.records.some((r) => r.DeveloperName === 'External_Id'));
  assert.ok(body.records.every((r) => r.TableEnumOrId === 'Account'));

  const one = await call(sf, 'GET', `/tooling/sobjects/CustomField/${id}`);
  const rec = one.body as { FullName: string; Metadata: Record<string, unknown> };
  assert.equal(rec.FullName, 'Account.Region__c');
  assert.equal(rec.Metadata.label, 'Region');
  assert.equal(rec.Metadata.description, 'Sales region');

  const ed = await call(
    sf,
    'GET',
    `/tooling/query?q=${encodeURIComponent("SELECT QualifiedApiName, DurableId FROM EntityDefinition WHERE QualifiedApiName = 'Invoice__c'")}`,
  );
  const edRec = (ed.body as { records: { DurableId: string }[] }).records[0];
  assert.match(edRec?.DurableId ?? '', /^01I/);
  const bad = await call(sf, 'GET', `/tooling/query?q=${encodeURIComponent('SELECT Nope FROM CustomField')}`);
  assert.equal(bad.status, 400);
  assert.equal((bad.body as { errorCode: string }[])[0]?.errorCode, 'INVALID_FIELD');
});

test('creating a field grants field-level security to nobody; FieldPermissions rows grant it per profile', async (t) => {
  const sf = await start(t);
  assert.equal(
    (await createField(sf, 'Account.Secret__c', { type: 'Text', label: 'Secret', length: 20 })).status,
    201,
  );
  const fls = async () => {
    const soql =
      "SELECT Parent.Profile.Name, PermissionsRead, PermissionsEdit FROM FieldPermissions WHERE Field = 'Account.Secret__c'";
    const r = await call(sf, 'GET', `/query?q=${encodeURIComponent(soql)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (
      r.body as { records: { Parent: { Profile: { Name: string } | null }; PermissionsEdit: boolean }[] }
    ).records;
  };
  assert.deepEqual(await fls(), []);

  const sets = await call(
    sf,
    'GET',
    `/query?q=${encodeURIComponent("SELECT Id, Profile.Name FROM PermissionSet WHERE IsOwnedByProfile = true AND Profile.Name IN ('System Administrator', 'Standard User')")}`,
  );
  const parents = (sets.body as { records: { Id: string; Profile: { Name: string } }[] }).records;
  assert.equal(parents.length, 2);
  const grant = await call(sf, 'POST', '/composite/sobjects', {
    allOrNone: false,
    records: parents.map((p) => ({
      attributes: { type: 'FieldPermissions' },
      ParentId: p.Id,
      SobjectType: 'Account',
      Field: 'Account.Secret__c',
      PermissionsRead: true,
      PermissionsEdit: p.Profile.Name === 'System Administrator',
    })),
  });
  assert.equal(grant.status, 200);
  assert.ok(
    (grant.body as { success: boolean }[]).every((r) => r.success),
    JSON.stringify(grant.body),
  );
  const rows = await fls();
  assert.deepEqual(rows.map((r) => [r.Parent.Profile?.Name, r.PermissionsEdit]).sort(), [
    ['Standard User', false],
    ['System Administrator', true],
  ]);

  // The rules of FieldPermissions: duplicates, edit without read, unknown fields.
  const first = parents[0]?.Id;
  const dup = await call(sf, 'POST', '/sobjects/FieldPermissions', {
    ParentId: first,
    SobjectType: 'Account',
    Field: 'Account.Secret__c',
    PermissionsRead: true,
  });
  assert.equal(dup.status, 400);
  assert.equal((dup.body as { errorCode: string }[])[0]?.errorCode, 'DUPLICATE_VALUE');
  const editOnly = await call(sf, 'POST', '/sobjects/FieldPermissions', {
    ParentId: first,
    SobjectType: 'Account',
    Field: 'Account.Phone',
    PermissionsRead: false,
    PermissionsEdit: true,
  });
  assert.equal((editOnly.body as { errorCode: string }[])[0]?.errorCode, 'FIELD_INTEGRITY_EXCEPTION');
  const unknown = await call(sf, 'POST', '/sobjects/FieldPermissions', {
    ParentId: first,
    SobjectType: 'Account',
    Field: 'Account.Nope__c',
    PermissionsRead: true,
  });
  assert.equal(
    (unknown.body as { errorCode: string }[])[0]?.errorCode,
    'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
  );
});

test('CustomObject creation adds an object that describe, DML and SOQL know', async (t) => {
  const sf = await start(t);
  const res = await call(sf, 'POST', '/tooling/sobjects/CustomObject', {
    FullName: 'Shipment__c',
    Metadata: {
      label: 'Shipment',
      pluralLabel: 'Shipments',
      nameField: { type: 'Text', label: 'Shipment Name' },
      deploymentStatus: 'Deployed',
      sharingModel: 'ReadWrite',
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match((res.body as { id: string }).id, /^01I/);
  assert.equal(
    (
      await createField(sf, 'Shipment__c.Weight__c', {
        type: 'Number',
        label: 'Weight',
        precision: 8,
        scale: 2,
      })
    ).status,
    201,
  );
  const created = await call(sf, 'POST', '/sobjects/Shipment__c', { Name: 'S-1', Weight__c: 3.5 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const q = await call(
    sf,
    'GET',
    `/tooling/query?q=${encodeURIComponent("SELECT DeveloperName, TableEnumOrId FROM CustomField WHERE DeveloperName = 'Weight'")}`,
  );
  const row = (q.body as { records: { TableEnumOrId: string }[] }).records[0];
  assert.equal(row?.TableEnumOrId, (res.body as { id: string }).id);
});

test('Tooling query with columns=true answers the column metadata, as the data API does', async (t) => {
  const sf = await start(t);
  const q = encodeURIComponent(
    "SELECT QualifiedApiName, Label FROM EntityDefinition WHERE QualifiedApiName = 'Account'",
  );
  const res = await call(sf, 'GET', `/tooling/query?q=${q}&columns=true`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { entityName: string; columnMetadata: { columnName: string }[] };
  assert.equal(body.entityName, 'EntityDefinition');
  assert.deepEqual(
    body.columnMetadata.map((c) => c.columnName),
    ['QualifiedApiName', 'Label'],
  );
  const bad = await call(
    sf,
    'GET',
    `/tooling/query?q=${encodeURIComponent('SELECT Nope FROM EntityDefinition')}&columns=true`,
  );
  assert.equal(bad.status, 400);
});
