import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { type ErrorBody, injectFaults } from './sf-writes-helpers.ts';

interface QueryAnswer {
  data: {
    totalSize: number;
    done: boolean;
    records: Array<{ attributes: { type: string }; Id: string; Name: string }>;
    next_cursor: string | null;
  };
}

test('query: pages followed up to 10 000 records, then a signed cursor continues', async (t) => {
  const s = await startStack(t);
  s.sf.org.insert(
    'Account',
    Array.from({ length: 12_500 }, (_, i) => ({ Name: `Q ${String(i).padStart(5, '0')}` })),
  );
  const soql = "SELECT Id, name FROM Account WHERE Name LIKE 'Q %' ORDER BY Name";
  s.sf.accounting.reset();
  const first = await s.api<QueryAnswer>('/v1/object/soql', { body: { data: soql } });
  assert.equal(first.status, 200, first.text.slice(0, 300));
  assert.equal(first.body.data.totalSize, 12_500);
  assert.equal(first.body.data.done, false);
  assert.equal(first.body.data.records.length, 10_000);
  assert.equal(first.body.data.records[0]?.attributes.type, 'Account');
  assert.equal(first.body.data.records[9_999]?.Name, 'Q 09999');
  assert.equal(s.sf.accounting.count('rest.query') + s.sf.accounting.count('rest.queryMore'), 5);
  const cursor = first.body.data.next_cursor;
  assert.ok(cursor);

  const next = await s.api<QueryAnswer>('/v1/object/soql', { body: { cursor } });
  assert.equal(next.status, 200, next.text.slice(0, 300));
  assert.equal(next.body.data.done, true);
  assert.equal(next.body.data.next_cursor, null);
  assert.equal(next.body.data.records.length, 2_500);
  assert.equal(next.body.data.records[0]?.Name, 'Q 10000');

  // A cursor changed by the client is refused.
  const [body, mac] = cursor.split('.');
  const forged = `${Buffer.from(JSON.stringify({ c: s.connectionIds.salesforce, u: '/services/data/v62.0/query/x-0' })).toString('base64url')}.${mac}`;
  for (const bad of [forged, `${body}.AAAA`, 'garbage']) {
    const refused = await s.api<ErrorBody>('/v1/object/soql', { body: { cursor: bad } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'invalid_cursor');
  }
});

test('query: a Salesforce query error is a 400 with Salesforce’s message', async (t) => {
  const s = await startStack(t);
  const answer = await s.api<ErrorBody>('/v1/object/soql', {
    body: { data: 'SELECT Id, Bogus__c FROM Account' },
  });
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, 'invalid_query');
  assert.match(answer.body.error.message, /No such column 'Bogus__c'/);
  const crm = answer.body.error.details[0]?.['crm_error'] as Array<{ errorCode: string }>;
  assert.equal(crm[0]?.errorCode, 'INVALID_FIELD');
});

test('query: 5xx answers and dropped connections are retried; a query on HubSpot is 422', async (t) => {
  const s = await startStack(t);
  s.sf.org.insert('Account', [{ Name: 'Retry me' }]);
  await injectFaults(s, [
    { kind: 'error503', match: 'rest.query', times: 1 },
    { kind: 'drop', match: 'rest.query', times: 1 },
  ]);
  s.sf.accounting.reset();
  const answer = await s.api<QueryAnswer>('/v1/object/soql', {
    body: { data: "SELECT Id, Name FROM Account WHERE Name = 'Retry me'" },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.records.length, 1);
  assert.equal(s.sf.accounting.count('rest.query'), 3);
  const hubspot = await s.api<ErrorBody>('/v1/object/soql', {
    token: s.tokens.hubspot,
    body: { data: 'SELECT Id FROM Account' },
  });
  assert.equal(hubspot.status, 422);
});
