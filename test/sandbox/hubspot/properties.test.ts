import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HubSpotSandbox, startHubSpotSandbox } from '../../../sandbox/hubspot/index.ts';

interface Api {
  hs: HubSpotSandbox;
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

async function start(t: { after: (fn: () => Promise<void>) => void }): Promise<Api> {
  const hs = await startHubSpotSandbox({ port: 0, rateLimit: { enabled: false } });
  t.after(() => hs.close());
  return {
    hs,
    async call(method, path, body) {
      const res = await fetch(`${hs.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${hs.credentials.accessToken}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? {} : JSON.parse(text) };
    },
  };
}

const base = { label: 'A label', groupName: 'contactinformation' };

test('create answers 201 with the full property model; list, get and record writes see it', async (t) => {
  const api = await start(t);
  const created = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'loyalty_tier',
    type: 'enumeration',
    fieldType: 'select',
    options: [
      { label: 'Gold', value: 'gold' },
      { label: 'Silver', value: 'silver', hidden: false, displayOrder: 5 },
    ],
  });
  assert.equal(created.status, 201);
  const p = created.body;
  assert.equal(p.name, 'loyalty_tier');
  assert.equal(p.description, '');
  assert.equal(p.archived, false);
  assert.equal(p.hasUniqueValue, false);
  assert.equal(p.calculated, false);
  assert.equal(typeof p.createdAt, 'string');
  assert.deepEqual(p.modificationMetadata, {
    archivable: true,
    readOnlyDefinition: false,
    readOnlyValue: false,
  });
  assert.deepEqual(p.options, [
    { label: 'Gold', value: 'gold', displayOrder: 0, hidden: false },
    { label: 'Silver', value: 'silver', displayOrder: 5, hidden: false },
  ]);
  assert.equal(p.hubspotDefined, undefined);
  const one = await api.call('GET', '/crm/v3/properties/contacts/loyalty_tier');
  assert.equal(one.status, 200);
  assert.equal(one.body.label, 'A label');
  const list = await api.call('GET', '/crm/v3/properties/0-1?properties=loyalty_tier,email');
  assert.deepEqual((list.body.results as { name: string }[]).map((r) => r.name).sort(), [
    'email',
    'loyalty_tier',
  ]);
  const rec = await api.call('POST', '/crm/v3/objects/contacts', {
    properties: { email: 'gold@example.com', loyalty_tier: 'gold' },
  });
  assert.equal(rec.status, 201);
  const read = await api.call('GET', `/crm/v3/objects/contacts/${rec.body.id}?properties=loyalty_tier`);
  assert.equal((read.body.properties as Record<string, string>).loyalty_tier, 'gold');
});

test('409 for a name that exists (also after archiving), with HubSpot error shape', async (t) => {
  const api = await start(t);
  const dup = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'email',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.status, 'error');
  assert.equal(dup.body.category, 'OBJECT_ALREADY_EXISTS');
  assert.match(String(dup.body.message), /email/);
  const made = await api.call('POST', '/crm/v3/properties/deals', {
    ...base,
    groupName: 'dealinformation',
    name: 'gone_soon',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(made.status, 201);
  assert.equal((await api.call('DELETE', '/crm/v3/properties/deals/gone_soon')).status, 204);
  assert.equal((await api.call('GET', '/crm/v3/properties/deals/gone_soon')).status, 404);
  const archived = await api.call('GET', '/crm/v3/properties/deals/gone_soon?archived=true');
  assert.equal(archived.body.archived, true);
  const again = await api.call('POST', '/crm/v3/properties/deals', {
    ...base,
    groupName: 'dealinformation',
    name: 'gone_soon',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(again.status, 409);
});

test('internal names: lower-case letters, digits, underscores, starting with a letter; hs_ is reserved', async (t) => {
  const api = await start(t);
  for (const name of ['Upper', '1st', '_x', 'has-dash', 'with space', 'a'.repeat(101), 'hs_mine']) {
    const r = await api.call('POST', '/crm/v3/properties/contacts', {
      ...base,
      name,
      type: 'string',
      fieldType: 'text',
    });
    assert.equal(r.status, 400, name);
    assert.equal(r.body.category, 'VALIDATION_ERROR', name);
  }
  const ok = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'a1_b2',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(ok.status, 201);
});

test('required attributes, in HubSpot body-parse wording', async (t) => {
  const api = await start(t);
  const r = await api.call('POST', '/crm/v3/properties/contacts', { name: 'x_only' });
  assert.equal(r.status, 400);
  assert.match(
    String(r.body.message),
    /Cannot build PropertyCreate, some of required attributes are not set \[fieldType, groupName, label, type\]/,
  );
});

test('the group must exist', async (t) => {
  const api = await start(t);
  const r = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    groupName: 'nope',
    name: 'grp_x',
    type: 'string',
    fieldType: 'text',
  });
  assert.equal(r.status, 400);
  assert.match(String(r.body.message), /nope/);
});

test('type → fieldType pairs as HubSpot documents them', async (t) => {
  const api = await start(t);
  const valid: [string, string][] = [
    ['string', 'text'],
    ['string', 'textarea'],
    ['string', 'html'],
    ['string', 'phonenumber'],
    ['string', 'file'],
    ['number', 'number'],
    ['date', 'date'],
    ['datetime', 'date'],
    ['bool', 'booleancheckbox'],
    ['enumeration', 'select'],
    ['enumeration', 'radio'],
    ['enumeration', 'checkbox'],
    ['enumeration', 'booleancheckbox'],
  ];
  const invalid: [string, string][] = [
    ['string', 'number'],
    ['number', 'text'],
    ['date', 'text'],
    ['datetime', 'number'],
    ['bool', 'select'],
    ['enumeration', 'text'],
    ['string', 'select'],
    ['number', 'date'],
  ];
  const options = [{ label: 'One', value: 'one' }];
  let i = 0;
  for (const [type, fieldType] of valid) {
    const r = await api.call('POST', '/crm/v3/properties/companies', {
      ...base,
      groupName: 'companyinformation',
      name: `valid_${i++}`,
      type,
      fieldType,
      ...(type === 'enumeration' ? { options } : {}),
    });
    assert.equal(r.status, 201, `${type}/${fieldType}`);
  }
  for (const [type, fieldType] of invalid) {
    const r = await api.call('POST', '/crm/v3/properties/companies', {
      ...base,
      groupName: 'companyinformation',
      name: `invalid_${i++}`,
      type,
      fieldType,
      ...(type === 'enumeration' ? { options } : {}),
    });
    assert.equal(r.status, 400, `${type}/${fieldType}`);
    assert.equal(r.body.category, 'VALIDATION_ERROR');
    assert.match(
      String(r.body.message),
      new RegExp(`'${type}' is not compatible with fieldType '${fieldType}'`),
    );
  }
  const unknownType = await api.call('POST', '/crm/v3/properties/companies', {
    ...base,
    groupName: 'companyinformation',
    name: 'u_t',
    type: 'text',
    fieldType: 'text',
  });
  assert.equal(unknownType.status, 400);
  assert.match(String(unknownType.body.message), /not one of the values accepted/);
  const calc = await api.call('POST', '/crm/v3/properties/companies', {
    ...base,
    groupName: 'companyinformation',
    name: 'calc_x',
    type: 'number',
    fieldType: 'calculation_equation',
  });
  assert.equal(calc.status, 400);
  const calcOk = await api.call('POST', '/crm/v3/properties/companies', {
    ...base,
    groupName: 'companyinformation',
    name: 'calc_y',
    type: 'number',
    fieldType: 'calculation_equation',
    calculationFormula: 'numberofemployees * 2',
  });
  assert.equal(calcOk.status, 201);
  assert.equal(calcOk.body.calculated, true);
});

test('options: required for enumerations, label and value each, values unique; bool gets True/False', async (t) => {
  const api = await start(t);
  const post = (name: string, extra: object) =>
    api.call('POST', '/crm/v3/properties/contacts', {
      ...base,
      name,
      type: 'enumeration',
      fieldType: 'select',
      ...extra,
    });
  assert.equal((await post('no_opts', {})).status, 400);
  assert.equal((await post('empty_opts', { options: [] })).status, 400);
  assert.equal((await post('no_value', { options: [{ label: 'A' }] })).status, 400);
  const dup = await post('dup_vals', {
    options: [
      { label: 'A', value: 'a' },
      { label: 'B', value: 'a' },
    ],
  });
  assert.equal(dup.status, 400);
  assert.match(String(dup.body.message), /duplicate option value 'a'/);
  const bool = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'is_vip',
    type: 'bool',
    fieldType: 'booleancheckbox',
  });
  assert.equal(bool.status, 201);
  assert.deepEqual(
    (bool.body.options as { value: string }[]).map((o) => o.value),
    ['true', 'false'],
  );
});

test('update (PATCH) re-checks the merged definition; HubSpot-defined definitions are read-only; unknown → 404', async (t) => {
  const api = await start(t);
  await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    name: 'nickname',
    type: 'string',
    fieldType: 'text',
  });
  const ok = await api.call('PATCH', '/crm/v3/properties/contacts/nickname', {
    label: 'Nick',
    fieldType: 'textarea',
  });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.label, 'Nick');
  assert.equal(ok.body.fieldType, 'textarea');
  const bad = await api.call('PATCH', '/crm/v3/properties/contacts/nickname', { fieldType: 'select' });
  assert.equal(bad.status, 400);
  const builtIn = await api.call('PATCH', '/crm/v3/properties/contacts/firstname', { label: 'Given name' });
  assert.equal(builtIn.status, 400);
  assert.equal(
    (await api.call('PATCH', '/crm/v3/properties/contacts/nope_nope', { label: 'x' })).status,
    404,
  );
});

test('unknown object type: 400 "Unable to infer object type"', async (t) => {
  const api = await start(t);
  const r = await api.call('GET', '/crm/v3/properties/unicorns');
  assert.equal(r.status, 400);
  assert.match(String(r.body.message), /unicorns/);
});

test('batch create (201 / 207), batch read (200 / 207), batch archive (204)', async (t) => {
  const api = await start(t);
  const created = await api.call('POST', '/crm/v3/properties/contacts/batch/create', {
    inputs: [
      { ...base, name: 'b_one', type: 'string', fieldType: 'text' },
      { ...base, name: 'b_two', type: 'number', fieldType: 'number' },
    ],
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.status, 'COMPLETE');
  assert.equal((created.body.results as unknown[]).length, 2);
  const partial = await api.call('POST', '/crm/v3/properties/contacts/batch/create', {
    inputs: [
      { ...base, name: 'b_three', type: 'string', fieldType: 'text' },
      { ...base, name: 'b_one', type: 'string', fieldType: 'text' },
    ],
  });
  assert.equal(partial.status, 207);
  assert.equal(partial.body.numErrors, 1);
  const read = await api.call('POST', '/crm/v3/properties/contacts/batch/read', {
    archived: false,
    inputs: [{ name: 'b_one' }, { name: 'email' }],
  });
  assert.equal(read.status, 200);
  const readPartial = await api.call('POST', '/crm/v3/properties/contacts/batch/read', {
    archived: false,
    inputs: [{ name: 'b_one' }, { name: 'zzz' }],
  });
  assert.equal(readPartial.status, 207);
  const archive = await api.call('POST', '/crm/v3/properties/contacts/batch/archive', {
    inputs: [{ name: 'b_one' }, { name: 'never_was' }],
  });
  assert.equal(archive.status, 204);
  assert.equal((await api.call('GET', '/crm/v3/properties/contacts/b_one')).status, 404);
});

test('property groups: list, create (201 / 409), get, update, archive', async (t) => {
  const api = await start(t);
  const list = await api.call('GET', '/crm/v3/properties/contacts/groups');
  assert.ok((list.body.results as { name: string }[]).some((g) => g.name === 'contactinformation'));
  const created = await api.call('POST', '/crm/v3/properties/contacts/groups', {
    name: 'loyalty',
    label: 'Loyalty',
    displayOrder: 3,
  });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { name: 'loyalty', label: 'Loyalty', displayOrder: 3, archived: false });
  assert.equal(
    (await api.call('POST', '/crm/v3/properties/contacts/groups', { name: 'loyalty', label: 'Again' }))
      .status,
    409,
  );
  assert.equal(
    (await api.call('POST', '/crm/v3/properties/contacts/groups', { name: 'Bad Name', label: 'x' })).status,
    400,
  );
  const updated = await api.call('PATCH', '/crm/v3/properties/contacts/groups/loyalty', {
    label: 'Loyalty program',
  });
  assert.equal(updated.body.label, 'Loyalty program');
  const inGroup = await api.call('POST', '/crm/v3/properties/contacts', {
    ...base,
    groupName: 'loyalty',
    name: 'points',
    type: 'number',
    fieldType: 'number',
  });
  assert.equal(inGroup.status, 201);
  assert.equal((await api.call('DELETE', '/crm/v3/properties/contacts/groups/loyalty')).status, 400);
  await api.call('DELETE', '/crm/v3/properties/contacts/points');
  assert.equal((await api.call('DELETE', '/crm/v3/properties/contacts/groups/loyalty')).status, 204);
  assert.equal((await api.call('GET', '/crm/v3/properties/contacts/groups/loyalty')).status, 404);
});

test('at most ten unique-value properties per object type', async (t) => {
  const api = await start(t);
  const existing = await api.call('GET', '/crm/v3/properties/tickets');
  const already = (existing.body.results as { hasUniqueValue?: boolean }[]).filter(
    (p) => p.hasUniqueValue,
  ).length;
  const post = (i: number) =>
    api.call('POST', '/crm/v3/properties/tickets', {
      label: `Key ${i}`,
      groupName: 'ticketinformation',
      name: `unique_key_${i}`,
      type: 'string',
      fieldType: 'text',
      hasUniqueValue: true,
    });
  for (let i = already; i < 10; i += 1) assert.equal((await post(i)).status, 201, `unique #${i + 1}`);
  const eleventh = await post(10);
  assert.equal(eleventh.status, 400);
  assert.match(String(eleventh.body.message), /At most 10 properties with unique values/);
});
