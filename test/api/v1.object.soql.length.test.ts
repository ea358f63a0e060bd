import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_QUERY_URI_BYTES } from '../../src/providers/salesforce/query.ts';
import { startStack } from '../helpers/stack.ts';
import type { ErrorBody } from './sf-writes-helpers.ts';

const QUERY_PATH = '/services/data/v62.0/query?q=';

/** `SELECT … WHERE Name = 'xxx…'` whose query URI is exactly `uriBytes` long. */
function queryOfUri(uriBytes: number): string {
  const shell = (n: number) => `SELECT Id FROM Account WHERE Name = '${'x'.repeat(n)}'`;
  const overhead = QUERY_PATH.length + encodeURIComponent(shell(0)).length;
  return shell(uriBytes - overhead);
}

test('a query too long for Salesforce’s query URL is a 400 stating the limit, before any call', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const long = `SELECT Id FROM Account WHERE Name IN (${Array.from({ length: 7000 }, (_, i) => `'N${i}'`).join(', ')})`;
  assert.ok(long.length > 50_000 && long.length < 100_000, 'within the schema’s 100 000 characters');
  const answer = await s.api<ErrorBody>('/v1/object/soql', { body: { data: long } });
  assert.equal(answer.status, 400, answer.text.slice(0, 300));
  assert.equal(answer.body.error.code, 'query_too_long');
  assert.match(answer.body.error.message, new RegExp(`at most ${MAX_QUERY_URI_BYTES} bytes`));
  assert.equal(answer.body.error.details[0]?.['limit_bytes'], MAX_QUERY_URI_BYTES);
  assert.equal(answer.body.error.details[0]?.['path'], '/data');
  assert.equal(s.sf.accounting.count('rest'), 0);
  assert.equal(s.sf.accounting.count('refused'), 0);
});

test('the query URL limit: at the limit the query runs, one byte past it is refused', async (t) => {
  const s = await startStack(t);
  const at = await s.api<{ data: { totalSize: number } }>('/v1/object/soql', {
    body: { data: queryOfUri(MAX_QUERY_URI_BYTES) },
  });
  assert.equal(at.status, 200, at.text.slice(0, 300));
  assert.equal(at.body.data.totalSize, 0);
  s.sf.accounting.reset();
  const past = await s.api<ErrorBody>('/v1/object/soql', {
    body: { data: queryOfUri(MAX_QUERY_URI_BYTES + 1) },
  });
  assert.equal(past.body.error.code, 'query_too_long');
  assert.equal(s.sf.accounting.snapshot().total, 0);
});

test('the Salesforce sandbox answers an over-long URL as Salesforce does: 414, or 431 with the headers', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const url = (n: number) => `${s.sf.url}${QUERY_PATH}${'x'.repeat(n - QUERY_PATH.length)}`;
  const tooLong = await fetch(url(16_385));
  assert.equal(tooLong.status, 414);
  const withHeaders = await fetch(url(15_000), { headers: { 'x-padding': 'p'.repeat(2_000) } });
  assert.equal(withHeaders.status, 431);
  assert.equal(s.sf.accounting.count('refused'), 2);
  assert.equal(s.sf.accounting.count('rest'), 0);
  // Under the limit the request reaches the route (here: 401, no token).
  const fits = await fetch(url(15_000));
  assert.equal(fits.status, 401);
});
