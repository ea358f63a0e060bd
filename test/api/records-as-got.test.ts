import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';
import { type ErrorBody, stored, type WriteAnswer } from './sf-writes-helpers.ts';

type SfRecord = Record<string, unknown> & { attributes: { type: string }; Id: string };
type HsRecord = { id: string; properties: Record<string, string | null>; createdAt: string };

async function insertAccounts(s: Stack, names: string[]): Promise<string[]> {
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: names.map((Name) => ({ Name })) },
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.data.map((r) => String(r.id));
}

test('Salesforce update and delete take records exactly as get returned them, id under any case', async (t) => {
  const s = await startStack(t);
  for (const via of ['collections', 'bulk2'] as const) {
    const ids = await insertAccounts(s, [`${via} A`, `${via} B`, `${via} C`]);
    const got = await s.api<{ data: SfRecord[] }>('/v1/object/get/Account', {
      body: { data: { ids, fields: ['Name', 'Industry', 'CreatedDate', 'LastModifiedDate'] } },
    });
    assert.equal(got.status, 200, got.text);
    const [a, b, c] = got.body.data;
    assert.ok(a !== undefined && b !== undefined && c !== undefined);
    assert.equal(a.attributes.type, 'Account');
    assert.equal(typeof a['CreatedDate'], 'string');

    // As get returned it (attributes, Id, read-only dates), with `ID` and `id` on the others.
    const { Id: idC, ...restC } = c;
    const update = await s.api<WriteAnswer>('/v1/object/update/Account', {
      headers: { 'x-crm-proxy-interface': via },
      body: {
        data: [
          { ...a, Industry: 'Banking' },
          { ID: b.Id, Industry: 'Energy' },
          { ...restC, id: idC, Name: `${via} C2` },
        ],
      },
    });
    assert.equal(update.status, 200, update.text);
    assert.equal(update.headers.get('x-crm-proxy-interface'), `${via}; reason=requested`);
    assert.deepEqual(
      update.body.data.map((r) => [r.id, r.success, r.errors]),
      ids.map((id) => [id, true, []]),
    );
    assert.equal(stored(s, ids[0])?.['Industry'], 'Banking');
    assert.equal(stored(s, ids[1])?.['Industry'], 'Energy');
    assert.equal(stored(s, ids[2])?.['Name'], `${via} C2`);

    // Delete takes the same records (get's `data` as is).
    const removed = await s.api<WriteAnswer>('/v1/object/delete', {
      headers: { 'x-crm-proxy-interface': via },
      body: { data: got.body.data },
    });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(
      removed.body.data.map((r) => [r.id, r.success]),
      ids.map((id) => [id, true]),
    );
    for (const id of ids) assert.equal(stored(s, id)?.['IsDeleted'], true);
  }
});

test('update and delete: a record without an id, or with two different ones, is a 400 naming it', async (t) => {
  const s = await startStack(t);
  const [id] = await insertAccounts(s, ['Kept']);
  const missing = await s.api<ErrorBody>('/v1/object/update/Account', {
    body: { data: [{ Id: id, Name: 'x' }, { Name: 'no id' }, { iD: 7 }] },
  });
  assert.equal(missing.status, 400, missing.text);
  assert.equal(missing.body.error.code, 'invalid_body');
  assert.deepEqual(missing.body.error.details, [
    { path: '/data/1/id', message: 'is required' },
    { path: '/data/2/id', message: 'must be a string of 1 to 255 characters' },
  ]);
  assert.match(missing.body.error.message, /\/data\/1\/id is required/);
  assert.match(missing.body.error.message, /"Id", "ID"/);

  const twice = await s.api<ErrorBody>('/v1/object/delete', {
    body: { data: [{ Id: id, id: '001000000000000AAA' }] },
  });
  assert.equal(twice.status, 400, twice.text);
  assert.deepEqual(twice.body.error.details, [
    { path: '/data/0/id', message: 'is given twice with different values; send one "id"' },
  ]);
  assert.equal(stored(s, id)?.['Name'], 'Kept');
});

test('HubSpot update and delete take records as get returned them; read-only values are left out', async (t) => {
  const s = await startStack(t);
  const hs = (path: string, body: unknown) => s.api<WriteAnswer>(path, { token: s.tokens.hubspot, body });
  const created = await hs('/v1/object/insert/contacts', {
    data: [
      { email: 'got-1@example.com', firstname: 'Ada' },
      { email: 'got-2@example.com', firstname: 'Grace' },
    ],
  });
  assert.equal(created.status, 200, created.text);
  const ids = created.body.data.map((r) => String(r.id));
  const got = await s.api<{ data: HsRecord[] }>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids, fields: ['firstname', 'email'] } },
  });
  assert.equal(got.status, 200, got.text);
  const [first, second] = got.body.data;
  assert.ok(first !== undefined && second !== undefined);
  assert.equal(typeof first.properties['createdate'], 'string');

  const update = await hs('/v1/object/update/contacts', {
    data: [
      { ...first, properties: { ...first.properties, firstname: 'Augusta' } },
      { Id: second.id, firstname: 'Hopper' },
    ],
  });
  assert.equal(update.status, 200, update.text);
  assert.deepEqual(
    update.body.data.map((r) => [r.id, r.success, r.errors]),
    ids.map((id) => [id, true, []]),
  );
  assert.equal(s.hs.portal.records.get('0-1', ids[0] ?? '')?.properties['firstname'], 'Augusta');
  assert.equal(s.hs.portal.records.get('0-1', ids[1] ?? '')?.properties['firstname'], 'Hopper');

  const removed = await hs('/v1/object/delete/contacts', { data: got.body.data });
  assert.equal(removed.status, 200, removed.text);
  assert.deepEqual(
    removed.body.data.map((r) => [r.id, r.success]),
    ids.map((id) => [id, true]),
  );
});

test('an unknown object is a 404 naming the closest real object, on both CRMs', async (t) => {
  const s = await startStack(t);
  const cases: Array<[string, string | undefined, unknown, string]> = [
    ['/v1/object/get/Acount', undefined, { data: { ids: ['001000000000000AAA'] } }, 'Account'],
    ['/v1/object/insert/Contcat', undefined, { data: [{ LastName: 'x' }] }, 'Contact'],
    ['/v1/describe/Opportunty', undefined, undefined, 'Opportunity'],
    ['/v1/object/get/contcts', s.tokens.hubspot, { data: { ids: ['1'] } }, 'contacts'],
    ['/v1/object/insert/compnies', s.tokens.hubspot, { data: [{ name: 'x' }] }, 'companies'],
  ];
  for (const [path, token, body, hint] of cases) {
    const answer = await s.api<ErrorBody>(path, {
      ...(token === undefined ? {} : { token }),
      ...(body === undefined ? {} : { body }),
    });
    assert.equal(answer.status, 404, `${path}: ${answer.text}`);
    assert.equal(answer.body.error.code, 'unknown_object');
    assert.ok(answer.body.error.message.includes(`Did you mean "${hint}"?`), answer.body.error.message);
    assert.equal(answer.body.error.details[0]?.['did_you_mean'], hint);
  }
  const nothingClose = await s.api<ErrorBody>('/v1/object/get/Zzzzzzzzzzzzzzzzzzzz', {
    body: { data: { ids: ['001000000000000AAA'] } },
  });
  assert.equal(nothingClose.status, 404);
  assert.equal(nothingClose.body.error.details[0]?.['did_you_mean'], null);
});

test('a parent named by external id: Contact.Account through collections and bulk', async (t) => {
  const s = await startStack(t);
  const parent = s.sf.org.query(
    'SELECT Id, External_Id__c FROM Account WHERE External_Id__c != null ORDER BY External_Id__c LIMIT 1',
    {},
  ).records[0] as unknown as { Id: string; External_Id__c: string };
  for (const via of ['collections', 'bulk2'] as const) {
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Contact', {
      headers: { 'x-crm-proxy-interface': via },
      body: {
        data: [
          { LastName: `Nested ${via}`, Account: { External_Id__c: parent.External_Id__c } },
          { LastName: `Dotted ${via}`, 'Account.External_Id__c': parent.External_Id__c },
        ],
      },
    });
    assert.equal(answer.status, 200, answer.text);
    for (const r of answer.body.data) {
      assert.equal(r.success, true, JSON.stringify(r));
      assert.equal(stored(s, r.id)?.['AccountId'], parent.Id);
    }
  }
  // Account's own parent is `Parent`: "Account" there is unknown, with the real name as a hint.
  const wrong = await s.api<ErrorBody>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Child', Account: { External_Id__c: parent.External_Id__c } }] },
  });
  assert.equal(wrong.status, 400, wrong.text);
  assert.equal(wrong.body.error.code, 'unknown_field');
  const child = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Child', Parent: { External_Id__c: parent.External_Id__c } }] },
  });
  assert.equal(child.status, 200, child.text);
  assert.equal(stored(s, child.body.data[0]?.id)?.['ParentId'], parent.Id);
});
