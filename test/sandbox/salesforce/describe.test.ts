import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { useSandbox, V } from './rest-helpers.ts';

const { sf, call } = useSandbox();

type Field = Record<string, unknown> & { name: string };
type Describe = Record<string, unknown> & { fields: Field[]; urls: Record<string, string> };

const recordings = JSON.parse(
  readFileSync(new URL('../../fixtures/recordings/salesforce-v42.json', import.meta.url), 'utf8'),
) as Record<string, Array<{ response_body: Describe }>>;

test('describeGlobal lists every object with the real entry keys', async () => {
  const res = await call('GET', `${V}/sobjects/`);
  assert.equal(res.status, 200);
  const body = res.body as {
    encoding: string;
    maxBatchSize: number;
    sobjects: Array<Record<string, unknown>>;
  };
  assert.equal(body.encoding, 'UTF-8');
  assert.equal(body.maxBatchSize, 200);
  const names = body.sobjects.map((s) => s.name);
  for (const n of [
    'Account',
    'Contact',
    'Lead',
    'Opportunity',
    'Case',
    'User',
    'Profile',
    'PermissionSet',
    'FieldPermissions',
    'Invoice__c',
    'Campaign',
    'Topic',
  ]) {
    assert.ok(names.includes(n), n);
  }
  const account = body.sobjects.find((s) => s.name === 'Account');
  assert.equal(account?.keyPrefix, '001');
  assert.deepEqual(account?.urls, {
    sobject: `${V}/sobjects/Account`,
    describe: `${V}/sobjects/Account/describe`,
    rowTemplate: `${V}/sobjects/Account/{ID}`,
  });
  const invoice = body.sobjects.find((s) => s.name === 'Invoice__c');
  assert.equal(invoice?.custom, true);
  const info = await call('GET', `${V}/sobjects/Account`);
  assert.equal((info.body as { objectDescribe: { name: string } }).objectDescribe.name, 'Account');
  assert.ok(Array.isArray((info.body as { recentItems: unknown[] }).recentItems));
});

test('object describe: the recorded real answer, with this version’s urls and the custom external id', async () => {
  const res = await call('GET', `${V}/sobjects/account/describe/`);
  assert.equal(res.status, 200);
  const d = res.body as Describe;
  const real = recordings['GET /services/data/v42.0/sobjects/Account/describe -> 200']?.[0]
    ?.response_body as Describe;
  assert.deepEqual(Object.keys(d).sort(), Object.keys(real).sort());
  const name = d.fields.find((f) => f.name === 'Name');
  assert.deepEqual(
    name,
    real.fields.find((f) => f.name === 'Name'),
  );
  assert.equal(d.urls.sobject, `${V}/sobjects/Account`);
  const ext = d.fields.find((f) => f.name === 'External_Id__c');
  assert.equal(ext?.externalId, true);
  assert.equal(ext?.unique, true);
  assert.equal(ext?.idLookup, true);
  assert.deepEqual(
    Object.keys(ext ?? {}).sort(),
    Object.keys(name ?? {}).sort(),
    'authored fields carry every key',
  );
  const contact = (await call('GET', `${V}/sobjects/Contact/describe`)).body as Describe;
  const lastName = contact.fields.find((f) => f.name === 'LastName');
  assert.deepEqual(
    [lastName?.createable, lastName?.nillable, lastName?.defaultedOnCreate],
    [true, false, false],
  );
  const accountId = contact.fields.find((f) => f.name === 'AccountId');
  assert.deepEqual(accountId?.referenceTo, ['Account']);
  assert.equal(accountId?.relationshipName, 'Account');
});

test('State and Country/Territory Picklists: code picklists beside the text fields, states dependent on countries', async (t) => {
  const d = (await call('GET', `${V}/sobjects/Account/describe`)).body as Describe;
  const real = recordings['GET /services/data/v42.0/sobjects/Account/describe -> 200']?.[0]
    ?.response_body as Describe;
  const recordedKeys = Object.keys(real.fields.find((f) => f.name === 'BillingCountry') ?? {}).sort();
  const names = d.fields.map((f) => f.name);
  assert.deepEqual(names.slice(names.indexOf('BillingCountry'), names.indexOf('BillingCountry') + 3), [
    'BillingCountry',
    'BillingStateCode',
    'BillingCountryCode',
  ]);
  for (const prefix of ['Billing', 'Shipping']) {
    const country = d.fields.find((f) => f.name === `${prefix}CountryCode`);
    const state = d.fields.find((f) => f.name === `${prefix}StateCode`);
    assert.deepEqual(Object.keys(country ?? {}).sort(), recordedKeys, 'every key of a real field');
    assert.deepEqual(
      [country?.type, country?.controllerName, country?.dependentPicklist, country?.compoundFieldName],
      ['picklist', null, false, `${prefix}Address`],
    );
    assert.deepEqual(
      [state?.type, state?.controllerName, state?.dependentPicklist],
      ['picklist', `${prefix}CountryCode`, true],
    );
    const countries = country?.picklistValues as Array<{ value: string; validFor: string | null }>;
    const states = state?.picklistValues as Array<{ value: string; label: string; validFor: string }>;
    assert.ok(countries.every((c) => c.validFor === null));
    // "Washington" is valid for the United States entry alone: one bit, at its index.
    const us = countries.findIndex((c) => c.value === 'US');
    const bits = Buffer.from(states.find((s) => s.label === 'Washington')?.validFor ?? '', 'base64');
    assert.deepEqual(
      [...bits].flatMap((byte, i) =>
        [...Array(8).keys()].filter((b) => byte & (0x80 >> b)).map((b) => i * 8 + b),
      ),
      [us],
    );
  }
  const off = await startSalesforceSandbox({ addressPicklists: false });
  t.after(() => off.close());
  const plain = await fetch(`${off.url}${V}/sobjects/Account/describe`, {
    headers: { authorization: `Bearer ${off.credentials.accessToken}` },
  });
  const fields = ((await plain.json()) as Describe).fields.map((f) => f.name);
  assert.deepEqual(
    fields.filter((n) => /(Country|State)Code$/.test(n)),
    [],
  );
});

test('authored describes (Opportunity, Invoice__c, FieldPermissions) have the real shape', async () => {
  const opp = (await call('GET', `${V}/sobjects/Opportunity/describe`)).body as Describe;
  assert.equal(opp.keyPrefix, '006');
  const stage = opp.fields.find((f) => f.name === 'StageName');
  assert.ok(Array.isArray(stage?.picklistValues) && (stage.picklistValues as unknown[]).length > 5);
  const required = opp.fields
    .filter((f) => f.createable && !f.nillable && !f.defaultedOnCreate)
    .map((f) => f.name);
  assert.deepEqual(required.sort(), ['CloseDate', 'Name', 'StageName']);
  const inv = (await call('GET', `${V}/sobjects/Invoice__c/describe`)).body as Describe;
  assert.equal(inv.custom, true);
  const acc = inv.fields.find((f) => f.name === 'Account__c');
  assert.equal(acc?.relationshipName, 'Account__r');
  const account = (await call('GET', `${V}/sobjects/Account/describe`)).body as Describe & {
    childRelationships: Array<{ childSObject: string; relationshipName: string }>;
  };
  assert.ok(
    account.childRelationships.some(
      (r) => r.childSObject === 'Invoice__c' && r.relationshipName === 'Invoices__r',
    ),
  );
  const fp = (await call('GET', `${V}/sobjects/FieldPermissions/describe`)).body as Describe;
  assert.equal(fp.keyPrefix, '01k');
  assert.equal(fp.fields.find((f) => f.name === 'ParentId')?.relationshipName, 'Parent');
});

test('If-Modified-Since: 304 when metadata has not changed, 200 after a custom field was added', async () => {
  const first = await call('GET', `${V}/sobjects/Account/describe`);
  const lastModified = first.headers.get('last-modified') ?? '';
  assert.ok(lastModified !== '');
  const cached = await call('GET', `${V}/sobjects/Account/describe`, undefined, {
    'if-modified-since': lastModified,
  });
  assert.equal(cached.status, 304);
  assert.equal(cached.body, null);
  const global = await call('GET', `${V}/sobjects`, undefined, { 'if-modified-since': lastModified });
  assert.equal(global.status, 304);
  const older = await call('GET', `${V}/sobjects/Account/describe`, undefined, {
    'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT',
  });
  assert.equal(older.status, 200);
  sf().org.addCustomField('Account', { name: 'Score__c', type: 'double', precision: 5, scale: 1 });
  const changed = await call('GET', `${V}/sobjects/Account/describe`, undefined, {
    'if-modified-since': lastModified,
  });
  assert.equal(changed.status, 200);
  assert.ok((changed.body as Describe).fields.some((f) => f.name === 'Score__c'));
  const created = await call('POST', `${V}/sobjects/Account`, { Name: 'Scored', Score__c: 4.5 });
  const id = (created.body as { id: string }).id;
  const got = await call(
    'GET',
    `${V}/query?q=${encodeURIComponent(`SELECT Score__c FROM Account WHERE Id = '${id}'`)}`,
  );
  assert.equal((got.body as { records: Array<{ Score__c: number }> }).records[0]?.Score__c, 4.5);
  await fetch(`${sf().url}/__sandbox/reset`, { method: 'POST' });
});

test('schemaFile: describes saved from a real org add or replace objects', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-schema-'));
  const lead = recordings['GET /services/data/v42.0/sobjects/Lead/describe -> 200']?.[0]
    ?.response_body as Describe;
  const custom = structuredClone(lead);
  custom.name = 'Prospect__c';
  custom.label = 'Prospect';
  custom.labelPlural = 'Prospects';
  custom.keyPrefix = 'a1Q';
  custom.custom = true;
  const file = join(dir, 'schema.json');
  writeFileSync(file, JSON.stringify({ sobjects: [custom] }));
  const other = await startSalesforceSandbox({ port: 0, schemaFile: file });
  try {
    const res = await fetch(`${other.url}${V}/sobjects/Prospect__c/describe`, {
      headers: { authorization: `Bearer ${other.credentials.accessToken}` },
    });
    assert.equal(res.status, 200);
    const created = await fetch(`${other.url}${V}/sobjects/Prospect__c`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other.credentials.accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ LastName: 'Mirror', Company: 'Org' }),
    });
    assert.equal(created.status, 201);
    assert.match(((await created.json()) as { id: string }).id, /^a1Q/);
  } finally {
    await other.close();
  }
  writeFileSync(file, JSON.stringify([custom]));
  const arrayForm = await startSalesforceSandbox({ port: 0, schemaFile: file });
  assert.ok(arrayForm.org.object('Prospect__c'));
  await arrayForm.close();
});
