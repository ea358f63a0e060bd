import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import type { ErrorBody, WriteAnswer } from './sf-writes-helpers.ts';

test('upsert: a long external id within 255 characters gets Salesforce’s own answer; a longer match value is a 400 before any call', async (t) => {
  const s = await startStack(t);
  // Longer than the sandbox's External_Id__c (40) but within 255: Salesforce's own per-record
  // answer, not a failure of the URL it travels in.
  const long = await s.api<WriteAnswer>('/v1/object/upsert/Account', {
    body: {
      data: [{ External_Id__c: `EXT-${'x'.repeat(251)}`, Name: 'Long id' }],
      match_key: 'External_Id__c',
    },
  });
  assert.equal(long.status, 200, long.text.slice(0, 300));
  assert.equal(long.headers.get('x-crm-proxy-upsert-action'), 'external_id_upsert');
  assert.equal(long.body.data[0]?.errors[0]?.statusCode, 'STRING_TOO_LONG', long.text.slice(0, 300));

  s.sf.accounting.reset();
  for (const matchKey of ['External_Id__c', 'Name', 'Id']) {
    const answer = await s.api<ErrorBody>('/v1/object/upsert/Account', {
      body: { data: [{ [matchKey]: 'y'.repeat(20_000) }], match_key: matchKey },
    });
    assert.equal(answer.status, 400, `${matchKey}: ${answer.text.slice(0, 300)}`);
    assert.equal(answer.body.error.code, 'invalid_value');
    assert.match(answer.body.error.message, /at most 255 characters/);
    assert.equal(answer.body.error.details[0]?.['path'], `/data/0/${matchKey}`);
  }
  assert.equal(s.sf.accounting.count('rest'), 0);
  assert.equal(s.sf.accounting.count('refused'), 0);
});
