import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox } from './rest-helpers.ts';

/**
 * Conditional requests as Salesforce's "Conditional Request Headers" page documents them
 * (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_rest_conditional_requests.htm):
 * ETag, If-Match and If-None-Match on sObject Rows of Account records; If-Modified-Since and
 * If-Unmodified-Since on those rows and on describes.
 */
const { sf, reset, call } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

const accountId = () => {
  const rec = sf().org.query('SELECT Id FROM Account ORDER BY Name LIMIT 1', { version: '62.0' }).records[0];
  return String(rec?.['Id']);
};

test('Account rows carry an ETag; If-None-Match answers 304, a changed record 200 with a new tag', async () => {
  const id = accountId();
  const path = `/services/data/v62.0/sobjects/Account/${id}`;
  const first = await call('GET', path);
  const etag = first.headers.get('etag') ?? '';
  assert.match(etag, /^".+--gzip"$/);
  const again = await call('GET', path, undefined, { 'if-none-match': etag });
  assert.equal(again.status, 304);
  assert.equal(again.body, null);
  // jsforce sends a PATCH with the header and sees the new tag change nothing it reads.
  const conn = connect();
  await conn.request({
    method: 'PATCH',
    url: path,
    body: JSON.stringify({ Phone: '555-0199' }),
    headers: { 'If-Match': etag, 'Content-Type': 'application/json' },
  });
  const changed = await call('GET', path, undefined, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  assert.equal((changed.body as { Phone: string }).Phone, '555-0199');
  // Contacts have no ETag (the page: Account records only).
  const contact = sf().org.query('SELECT Id FROM Contact LIMIT 1', { version: '62.0' }).records[0];
  const c = await call('GET', `/services/data/v62.0/sobjects/Contact/${String(contact?.['Id'])}`);
  assert.equal(c.headers.get('etag'), null);
});

test('jsforce: a PATCH with a stale If-Match is 412 PRECONDITION_FAILED and changes nothing', async () => {
  const id = accountId();
  const path = `/services/data/v62.0/sobjects/Account/${id}`;
  const stale = (await call('GET', path)).headers.get('etag') ?? '';
  const conn = connect();
  await conn.sobject('Account').update({ Id: id, Phone: '555-0100' });
  await assert.rejects(
    conn.request({
      method: 'PATCH',
      url: path,
      body: JSON.stringify({ Phone: '555-0111' }),
      headers: { 'If-Match': stale, 'Content-Type': 'application/json' },
    }),
    (e: Error & { errorCode?: string }) => e.errorCode === 'PRECONDITION_FAILED',
  );
  const rec = (await conn.sobject('Account').retrieve(id)) as { Phone: string };
  assert.equal(rec.Phone, '555-0100');
  // If-None-Match with the current tag refuses a PATCH too; a malformed tag is a 400.
  const current = (await call('GET', path)).headers.get('etag') ?? '';
  const none = await call('PATCH', path, { Phone: '1' }, { 'if-none-match': current });
  assert.equal(none.status, 412);
  const malformed = await call('PATCH', path, { Phone: '1' }, { 'if-match': 'not-quoted' });
  assert.equal(malformed.status, 400);
  assert.equal((malformed.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_HEADER_TYPE');
});

test('If-Modified-Since / If-Unmodified-Since on an Account row and on describes', async () => {
  const id = accountId();
  const path = `/services/data/v62.0/sobjects/Account/${id}`;
  const later = new Date(Date.now() + 60_000).toUTCString();
  const long = 'Mon, 01 Jan 2001 00:00:00 GMT';
  assert.equal((await call('GET', path, undefined, { 'if-modified-since': later })).status, 304);
  assert.equal((await call('GET', path, undefined, { 'if-modified-since': long })).status, 200);
  assert.equal((await call('GET', path, undefined, { 'if-unmodified-since': long })).status, 412);
  const describe = '/services/data/v62.0/sobjects/Account/describe';
  const d = await call('GET', describe);
  const lastModified = d.headers.get('last-modified') ?? '';
  assert.equal((await call('GET', describe, undefined, { 'if-modified-since': lastModified })).status, 304);
  assert.equal((await call('GET', describe, undefined, { 'if-unmodified-since': long })).status, 412);
  assert.equal(
    (await call('GET', '/services/data/v62.0/sobjects', undefined, { 'if-modified-since': lastModified }))
      .status,
    304,
  );
  // jsforce's describe still reads the document when nothing is conditional.
  const conn = connect();
  assert.equal((await conn.sobject('Account').describe()).name, 'Account');
});
