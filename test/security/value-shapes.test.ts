import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

const nested = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

test('a field value nested 5 000 arrays deep is a 400 naming the field, not a 500', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const paths = [
    '/v1/object/insert/Account',
    '/v1/object/update/Account',
    '/v1/object/upsert/Account',
    '/v1/object/get/Account',
    '/v1/object/add_custom_field/Account',
    '/v1/object/soql',
  ];
  const value = nested(5000, '"x"');
  const bodies: Record<string, string> = {
    '/v1/object/insert/Account': `{"data":[{"Name":${value}}]}`,
    '/v1/object/update/Account': `{"data":[{"id":"001000000000000AAA","Name":${value}}]}`,
    '/v1/object/upsert/Account': `{"data":[{"Name":${value}}],"match_key":"Id"}`,
    '/v1/object/get/Account': `{"data":{"ids":["001000000000000AAA"],"fields":${value}}}`,
    '/v1/object/add_custom_field/Account': `{"data":{"name":"Deep","label":"Deep","type":"Text","length":10,"valueSet":{"x":${value}}}}`,
    '/v1/object/soql': `{"data":${value}}`,
  };
  for (const path of paths) {
    for (const token of [s.tokens.salesforce, s.tokens.hubspot]) {
      const answer = await s.api<ErrorBody>(path, {
        token,
        rawBody: bodies[path] ?? '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 400, `${path}: ${answer.text.slice(0, 300)}`);
      assert.equal(answer.body.error.code, 'invalid_body', path);
      assert.match(answer.body.error.message, /nested more than 32 levels/);
      assert.match(String(answer.body.error.details[0]?.['path']), /^\/data\//, path);
    }
  }
  const insert = await s.api<ErrorBody>('/v1/object/insert/Account', {
    rawBody: bodies['/v1/object/insert/Account'] ?? '',
    headers: { 'content-type': 'application/json' },
  });
  assert.match(String(insert.body.error.details[0]?.['path']), /^\/data\/0\/Name\/0\/0\//);
  assert.equal(s.sf.accounting.count('collections'), 0);
});

test('field values of the wrong shape are a 400 naming each field, before any write', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const cases: Array<[unknown, string]> = [
    [{ Name: [['a']] }, '/data/0/Name'],
    [{ Name: { first: 'a', second: 'b' } }, '/data/0/Name'],
    [{ Name: 'ok', Industry: [1, 2] }, '/data/0/Industry'],
    [{ Name: 'ok', Owner: { Username: { deep: 'x' } } }, '/data/0/Owner'],
    [{ Name: 'ok', 'Parent.External_Id__c': ['x'] }, '/data/0/Parent.External_Id__c'],
  ];
  for (const via of ['collections', 'bulk2']) {
    for (const [record, path] of cases) {
      const answer = await s.api<ErrorBody>('/v1/object/insert/Account', {
        headers: { 'x-crm-proxy-interface': via },
        body: { data: [{ Name: 'fine' }, record] },
      });
      assert.equal(answer.status, 400, `${JSON.stringify(record)}: ${answer.text.slice(0, 300)}`);
      assert.equal(answer.body.error.code, 'invalid_value');
      assert.equal(answer.body.error.details[0]?.['path'], path.replace('/data/0', '/data/1'));
      assert.match(answer.body.error.message, /array of strings for a multi-select picklist/);
    }
  }
  const upsert = await s.api<ErrorBody>('/v1/object/upsert/Account', {
    body: { data: [{ Name: [['x']] }], match_key: 'Id' },
  });
  assert.equal(upsert.body.error.code, 'invalid_value');
  assert.equal(s.sf.accounting.count('collections') + s.sf.accounting.count('bulk2'), 0);
  // The accepted shapes still work: scalars, a picklist array, a parent by external id.
  const ok = await s.api<{ data: Array<{ success: boolean }> }>('/v1/object/insert/Account', {
    body: { data: [{ Name: 'Shapes', NumberOfEmployees: 3, Industry: null }] },
  });
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
});
