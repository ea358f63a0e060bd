import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

const ID = '001000000000000AAA';
const records = (n: number, withId = false) =>
  Array.from({ length: n }, (_, i) => (withId ? { id: ID, Name: `n${i}` } : { Name: `n${i}` }));
const ids = (n: number) => Array.from({ length: n }, () => ID);

/**
 * Salesforce's write limits are the schema's, checked before the connection's CRM is looked at.
 * Sending them with a HubSpot token proves it without touching any CRM: a body at the limit gets
 * past validation to the 422 (HubSpot has no such operation), one past it stops at the 400.
 */
test('write limits: each at its edge passes validation, one past it is refused naming the limit', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;
  // HubSpot has no `Account`: a request within the limits gets past validation and the limit checks
  // to the object's look-up (404), or for delete to the missing object name (400 invalid_body).
  const cases: Array<{
    path: string;
    atLimit: unknown;
    pastLimit: unknown;
    code: string;
    limit: number;
    atLimitCode: string;
  }> = [
    {
      path: '/v1/object/insert/Account',
      atLimit: { data: records(10_000) },
      pastLimit: { data: records(10_001) },
      code: 'too_many_records',
      limit: 10_000,
      atLimitCode: 'unknown_object',
    },
    {
      path: '/v1/object/update/Account',
      atLimit: { data: records(10_000, true) },
      pastLimit: { data: records(10_001, true) },
      code: 'too_many_records',
      limit: 10_000,
      atLimitCode: 'unknown_object',
    },
    {
      path: '/v1/object/delete',
      atLimit: { data: { ids: ids(10_000) } },
      pastLimit: { data: { ids: ids(10_001) } },
      code: 'too_many_ids',
      limit: 10_000,
      atLimitCode: 'invalid_body',
    },
    {
      path: '/v1/object/upsert/Account',
      atLimit: { data: records(1), match_key: 'Ext_Id__c' },
      pastLimit: { data: records(2), match_key: 'Ext_Id__c' },
      code: 'too_many_records',
      limit: 1,
      atLimitCode: 'unknown_object',
    },
  ];
  for (const c of cases) {
    const ok = await s.api<ErrorBody>(c.path, { token, body: c.atLimit });
    assert.equal(ok.body.error.code, c.atLimitCode, `${c.path} at the limit: ${ok.text.slice(0, 200)}`);
    const past = await s.api<ErrorBody>(c.path, { token, body: c.pastLimit });
    assert.equal(past.status, 400, `${c.path} past the limit`);
    assert.equal(past.body.error.code, c.code);
    assert.match(past.body.error.message, new RegExp(`${c.limit === 1 ? 'exactly one' : c.limit}`));
    assert.equal(past.body.error.details[0]?.['limit'], c.limit);
  }
  for (const [path, body] of [
    ['/v1/object/insert/Account', { data: [] }],
    ['/v1/object/upsert/Account', { data: [], match_key: 'Id' }],
    ['/v1/object/delete', { data: { ids: [] } }],
    ['/v1/object/get/Account', { data: { ids: [] } }],
  ] as const) {
    const answer = await s.api<ErrorBody>(path, { body });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error.code, 'invalid_body');
  }
  assert.equal(s.sf.accounting.snapshot().total, 0);
  // The only HubSpot calls: the custom object look-ups of `Account` (no record was sent).
  assert.equal(s.hs.accounting.snapshot().total, s.hs.accounting.count('schemas.list'));
});

test('get limits depend on the CRM: Salesforce 10 000 ids, HubSpot 100', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  s.hs.accounting.reset();
  const sfPast = await s.api<ErrorBody>('/v1/object/get/Account', { body: { data: { ids: ids(10_001) } } });
  assert.equal(sfPast.status, 400);
  assert.equal(sfPast.body.error.code, 'too_many_ids');
  assert.equal(sfPast.body.error.details[0]?.['limit'], 10_000);
  const hsPast = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: ids(101) } },
  });
  assert.equal(hsPast.status, 400);
  assert.equal(hsPast.body.error.code, 'too_many_ids');
  assert.match(hsPast.body.error.message, /at most 100 ids/);
  assert.equal(hsPast.body.error.details[0]?.['limit'], 100);
  assert.equal(
    s.sf.accounting.snapshot().total + s.hs.accounting.snapshot().total,
    0,
    'refused before any CRM call',
  );
  // At the limit the request gets past validation (Salesforce's 10 000 is exercised in v1.object.get.test.ts).
  const hsAt = await s.api<ErrorBody>('/v1/object/get/contacts', {
    token: s.tokens.hubspot,
    body: { data: { ids: Array.from({ length: 100 }, (_, i) => String(i + 1)) } },
  });
  assert.notEqual(hsAt.status, 400, hsAt.text.slice(0, 200));
});
