import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { codes, useSandbox, V } from './rest-helpers.ts';

const { sf, call, reset, fault } = useSandbox();
beforeEach(reset);

test('versions list: public, the real shape, 20.0 … 67.0', async () => {
  const res = await fetch(`${sf().url}/services/data/`);
  assert.equal(res.status, 200);
  const list = (await res.json()) as Array<{ label: string; url: string; version: string }>;
  assert.deepEqual(list[0], { label: "Winter '11", url: '/services/data/v20.0', version: '20.0' });
  assert.deepEqual(
    list.find((v) => v.version === '62.0'),
    { label: "Winter '25", url: '/services/data/v62.0', version: '62.0' },
  );
  assert.deepEqual(list.at(-1), { label: "Summer '26", url: '/services/data/v67.0', version: '67.0' });
  assert.equal(list.length, 48);
  const resources = await call('GET', V);
  assert.equal((resources.body as Record<string, string>).sobjects, `${V}/sobjects`);
  assert.equal((await call('GET', '/services/data/v19.0/sobjects')).status, 404);
  assert.deepEqual((await call('GET', '/services/data/v99.0/sobjects')).body, [
    { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' },
  ]);
});

test('session check: missing, unknown or expired tokens get 401 INVALID_SESSION_ID', async () => {
  const expected = [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }];
  for (const headers of [{ authorization: '' }, { authorization: 'Bearer nope' }]) {
    const res = await call('GET', `${V}/sobjects`, undefined, headers);
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, expected);
  }
  assert.equal(
    (
      await call('GET', `${V}/sobjects`, undefined, {
        authorization: `OAuth ${sf().credentials.accessToken}`,
      })
    ).status,
    200,
  );
  await fault('expireToken', 'rest.describeGlobal');
  const injected = await call('GET', `${V}/sobjects`);
  assert.equal(injected.status, 401);
  assert.deepEqual(injected.body, expected);
  await fetch(`${sf().url}/__sandbox/tokens/expire`, { method: 'POST' });
  const expired = await call('GET', `${V}/sobjects`);
  assert.equal(expired.status, 401);
  assert.deepEqual(expired.body, expected);
});

test('create → 201 {id, success, errors} with Location; get; patch 204; delete 204; then 404', async () => {
  const created = await call('POST', `${V}/sobjects/Account`, { name: 'Acme REST', numberofemployees: 12 });
  assert.equal(created.status, 201);
  const { id } = created.body as { id: string };
  assert.deepEqual(created.body, { id, success: true, errors: [] });
  assert.equal(created.headers.get('location'), `${V}/sobjects/Account/${id}`);
  assert.match(created.headers.get('content-type') ?? '', /^application\/json;charset=UTF-8/);

  const got = await call('GET', `${V}/sobjects/Account/${id.slice(0, 15)}`);
  assert.equal(got.status, 200);
  const rec = got.body as Record<string, unknown>;
  assert.deepEqual(rec.attributes, { type: 'Account', url: `${V}/sobjects/Account/${id}` });
  assert.equal(rec.Id, id);
  assert.equal(rec.Name, 'Acme REST');
  assert.equal(rec.NumberOfEmployees, 12);
  assert.equal(rec.Phone, null, 'nulls are explicit');
  assert.equal(rec.IsDeleted, false);
  assert.match(String(rec.SystemModstamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);

  const some = await call('GET', `${V}/sobjects/Account/${id}?fields=name,Owner.Name`);
  assert.deepEqual(Object.keys(some.body as object), ['attributes', 'Name', 'Owner']);

  assert.equal((await call('PATCH', `${V}/sobjects/Account/${id}`, { Phone: '555' })).status, 204);
  assert.equal(((await call('GET', `${V}/sobjects/Account/${id}`)).body as { Phone: string }).Phone, '555');
  assert.equal((await call('DELETE', `${V}/sobjects/Account/${id}`)).status, 204);

  const gone = await call('GET', `${V}/sobjects/Account/${id}`);
  assert.equal(gone.status, 404);
  assert.deepEqual(gone.body, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
  const again = await call('DELETE', `${V}/sobjects/Account/${id}`);
  assert.equal(again.status, 404);
  assert.deepEqual(codes(again.body), ['ENTITY_IS_DELETED']);
  const patchDeleted = await call('PATCH', `${V}/sobjects/Account/${id}`, { Phone: '1' });
  assert.deepEqual(codes(patchDeleted.body), ['ENTITY_IS_DELETED']);
  const notAnId = await call('GET', `${V}/sobjects/Account/Nope`);
  assert.equal(notAnId.status, 404);
  assert.deepEqual(notAnId.body, [
    {
      errorCode: 'NOT_FOUND',
      message: 'Provided external ID field does not exist or is not accessible: Nope',
    },
  ]);
  assert.equal((await call('GET', `${V}/sobjects/Nope__c/describe`)).status, 404);
});

test('create failures: 400 with the error array (errorCode, message, fields)', async () => {
  const missing = await call('POST', `${V}/sobjects/Contact`, { FirstName: 'x' });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, [
    {
      message: 'Required fields are missing: [LastName]',
      errorCode: 'REQUIRED_FIELD_MISSING',
      fields: ['LastName'],
    },
  ]);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['Account', { Name: 'x', Bogus: 1 }, 'INVALID_FIELD'],
    ['Account', { Name: 'x'.repeat(300) }, 'STRING_TOO_LONG'],
    ['Account', { Name: 'x', NumberOfEmployees: 'lots' }, 'INVALID_TYPE_ON_FIELD_IN_RECORD'],
    ['Account', { Name: 'x', External_Id__c: 'ACC-0001' }, 'DUPLICATE_VALUE'],
    ['Account', { Name: 'x', ParentId: 'zzz' }, 'MALFORMED_ID'],
    ['Account', { Name: 'x', ParentId: '001000000000000AAA' }, 'INVALID_CROSS_REFERENCE_KEY'],
    ['Account', { Name: 'x', LastModifiedDate: '2024-01-01' }, 'INVALID_FIELD_FOR_INSERT_UPDATE'],
    ['Invoice__c', { Name: 'x', Status__c: 'Bogus' }, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST'],
  ];
  for (const [object, body, code] of cases) {
    const res = await call('POST', `${V}/sobjects/${object}`, body);
    assert.equal(res.status, 400, code);
    assert.deepEqual(codes(res.body), [code]);
  }
  const withId = await call('POST', `${V}/sobjects/Account`, { Id: '001000000000000AAA', Name: 'x' });
  assert.deepEqual(withId.body, [
    { message: 'The Id field should not be specified in the sobject data.', errorCode: 'INVALID_FIELD' },
  ]);
  const badJson = await fetch(`${sf().url}${V}/sobjects/Account`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sf().credentials.accessToken}`, 'content-type': 'application/json' },
    body: '{"Name":',
  });
  assert.equal(badJson.status, 400);
  assert.deepEqual(codes(await badJson.json()), ['JSON_PARSER_ERROR']);
});

test('upsert by external id: 201 created, 200 updated (v46+), 204 updated (v45), 300 multiple, 404 bad field', async () => {
  const path = `${V}/sobjects/Account/External_Id__c`;
  const created = await call('PATCH', `${path}/UPS-1`, { Name: 'Upserted' });
  assert.equal(created.status, 201);
  const id = (created.body as { id: string }).id;
  assert.deepEqual(created.body, { id, success: true, errors: [], created: true });
  const updated = await call('PATCH', `${path}/ups-1`, { Name: 'Upserted 2' });
  assert.equal(updated.status, 200);
  assert.deepEqual(updated.body, { id, success: true, errors: [], created: false });
  const old = await call('PATCH', `/services/data/v45.0/sobjects/Account/External_Id__c/UPS-1`, {
    Name: 'Upserted 3',
  });
  assert.equal(old.status, 204);
  assert.equal(old.body, null);
  const got = await call('GET', `${path}/UPS-1`);
  assert.equal((got.body as { Name: string }).Name, 'Upserted 3');

  // Invoice__c.Legacy_Ref__c is an external id without the unique flag: two records may share a value.
  for (const n of ['A', 'B'])
    await call('POST', `${V}/sobjects/Invoice__c`, { Name: n, Legacy_Ref__c: 'SHARED' });
  const many = await call('PATCH', `${V}/sobjects/Invoice__c/Legacy_Ref__c/SHARED`, { Name: 'C' });
  assert.equal(many.status, 300);
  const urls = many.body as string[];
  assert.equal(urls.length, 2);
  for (const u of urls) assert.match(u, /^\/services\/data\/v62\.0\/sobjects\/Invoice__c\/a0B\w{15}$/);
  assert.equal((await call('GET', `${V}/sobjects/Invoice__c/Legacy_Ref__c/SHARED`)).status, 300);

  const updateOnly = await call('PATCH', `${path}/UPS-NEW?updateOnly=true`, { Name: 'never created' });
  assert.equal(updateOnly.status, 404);
  assert.equal((await call('GET', `${path}/UPS-NEW`)).status, 404);
  const badField = await call('PATCH', `${V}/sobjects/Account/Nope__c/1`, { Name: 'x' });
  assert.equal(badField.status, 404);
  assert.deepEqual(badField.body, [
    {
      errorCode: 'NOT_FOUND',
      message: 'Provided external ID field does not exist or is not accessible: Nope__c',
    },
  ]);
  assert.equal((await call('GET', `${path}/NOT-THERE`)).status, 404);
  const invalid = await call('PATCH', `${path}/UPS-9`, { Name: null });
  assert.equal(invalid.status, 400);
  assert.deepEqual(codes(invalid.body), ['REQUIRED_FIELD_MISSING']);
});

test('injected faults in the wire format', async () => {
  await fault('error500', 'rest.sobject.get');
  const e500 = await call('GET', `${V}/sobjects/Account/001000000000000AAA`);
  assert.equal(e500.status, 500);
  assert.deepEqual(codes(e500.body), ['UNKNOWN_EXCEPTION']);
  await fault('error503', 'rest.query');
  const e503 = await call('GET', `${V}/query?q=SELECT+Id+FROM+Account`);
  assert.equal(e503.status, 503);
  assert.deepEqual(codes(e503.body), ['SERVER_UNAVAILABLE']);
  await fault('rateLimit', 'rest');
  const limited = await call('GET', `${V}/sobjects`);
  assert.equal(limited.status, 403);
  assert.deepEqual(codes(limited.body), ['REQUEST_LIMIT_EXCEEDED']);
  const acc = await call('POST', `${V}/sobjects/Account`, { Name: 'Locked' });
  const id = (acc.body as { id: string }).id;
  await fault('lock', 'rest.sobject.update');
  const locked = await call('PATCH', `${V}/sobjects/Account/${id}`, { Name: 'x' });
  assert.equal(locked.status, 400);
  assert.deepEqual(locked.body, [
    {
      message: `unable to obtain exclusive access to this record or 1 records: ${id}`,
      errorCode: 'UNABLE_TO_LOCK_ROW',
    },
  ]);
  assert.equal(((await call('GET', `${V}/sobjects/Account/${id}`)).body as { Name: string }).Name, 'Locked');
});

test('call accounting kinds and reset to the seed', async () => {
  await fetch(`${sf().url}/__sandbox/calls`, { method: 'DELETE' });
  await call('GET', `${V}/sobjects/Account/describe`);
  await call('GET', `${V}/query?q=SELECT+Id+FROM+Lead`);
  await call('POST', `${V}/sobjects/Lead`, { LastName: 'R', Company: 'C' });
  assert.equal(sf().accounting.count('rest.describe'), 1);
  assert.equal(sf().accounting.count('rest.query'), 1);
  assert.equal(sf().accounting.count('rest.sobject.create'), 1);
  const before = (await call('GET', `${V}/query?q=SELECT+COUNT()+FROM+Lead`)).body as { totalSize: number };
  await reset();
  const after = (await call('GET', `${V}/query?q=SELECT+COUNT()+FROM+Lead`)).body as { totalSize: number };
  assert.equal(after.totalSize, before.totalSize - 1);
});
