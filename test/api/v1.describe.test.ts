import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';

interface Described {
  data: { sobjects?: Array<{ name: string }>; name?: string; fields?: Array<{ name: string }> };
}

test("describe returns Salesforce's own results unchanged, cached per connection", async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const global = await s.api<Described>('/v1/describe');
  assert.equal(global.status, 200);
  const direct = await fetch(`${s.sf.url}/services/data/v62.0/sobjects/`, {
    headers: { authorization: `Bearer ${s.sf.credentials.accessToken}` },
  });
  assert.deepEqual(global.body.data, await direct.json());
  assert.ok(global.body.data.sobjects?.some((o) => o.name === 'Account'));

  const account = await s.api<Described>('/v1/describe/account');
  assert.equal(account.status, 200);
  const directAccount = await fetch(`${s.sf.url}/services/data/v62.0/sobjects/Account/describe/`, {
    headers: { authorization: `Bearer ${s.sf.credentials.accessToken}` },
  });
  assert.deepEqual(account.body.data, await directAccount.json());
  assert.equal(account.body.data.name, 'Account');

  s.sf.accounting.reset();
  assert.equal((await s.api('/v1/describe')).status, 200);
  assert.equal((await s.api('/v1/describe/Account')).status, 200);
  assert.equal(s.sf.accounting.snapshot().total, 0, 'served from the describe cache');
});

test('describe with an empty JSON object body is accepted', async (t) => {
  const s = await startStack(t);
  const answer = await s.api('/v1/describe/Contact', { body: {} });
  assert.equal(answer.status, 200);
});

test('a CRM outage on describe is a 502 carrying the CRM error, after retries', async (t) => {
  const s = await startStack(t);
  s.sf.realism.script([{ kind: 'error503', match: 'rest.describe', times: 5 }]);
  const answer = await s.api<{ error: { code: string; details: Array<Record<string, unknown>> } }>(
    '/v1/describe/Lead',
  );
  assert.equal(answer.status, 502);
  assert.equal(answer.body.error.code, 'crm_error');
  assert.equal(answer.body.error.details[0]?.['status'], 503);
  assert.ok(answer.body.error.details[0]?.['crm_error'] !== null);
  assert.equal(s.sf.accounting.count('rest.describe'), 3, 'three attempts in all');
  s.sf.realism.clearFaults();
  assert.equal((await s.api('/v1/describe/Lead')).status, 200);
});
