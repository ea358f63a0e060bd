import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { connectionTo, rawCall, startTarget } from './v1.proxy.helpers.ts';

interface HsRecord {
  id: string;
  properties: Record<string, string | null>;
}

test('Salesforce: one record by its URL, with every method, query strings kept', async (t) => {
  const s = await startStack(t);
  const [created] = s.sf.org.insert('Account', [{ Name: 'Proxy Read', Industry: 'Energy' }]);
  assert.ok(created?.success && created.id !== undefined);
  const id = created.id;

  // The common use: reading one record by its address (full URL, and the same as a path).
  for (const target of [
    `${s.sf.url}/services/data/v62.0/sobjects/Account/${id}`,
    `/services/data/v62.0/sobjects/Account/${id}`.slice(1),
    `/services/data/v62.0/sobjects/Account/${id}`,
  ]) {
    const read = await s.api<{ Id: string; Name: string; attributes: { type: string } }>(
      `/v1/proxy/${target}`,
      {
        method: 'GET',
      },
    );
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.Id, id);
    assert.equal(read.body.Name, 'Proxy Read');
    assert.equal(read.body.attributes.type, 'Account');
    assert.match(read.headers.get('content-type') ?? '', /application\/json/);
    assert.ok(read.headers.get('x-request-id'));
  }

  // Query string kept: a SOQL query.
  const soql = encodeURIComponent(`SELECT Id, Name FROM Account WHERE Id = '${id}'`);
  const query = await s.api<{ totalSize: number; records: Array<{ Name: string }> }>(
    `/v1/proxy/services/data/v62.0/query?q=${soql}`,
    { method: 'GET' },
  );
  assert.equal(query.status, 200, query.text);
  assert.equal(query.body.totalSize, 1);
  assert.equal(query.body.records[0]?.Name, 'Proxy Read');

  // POST creates (201), PATCH updates (204), DELETE removes (204), each as Salesforce answers.
  const post = await s.api<{ id: string; success: boolean }>(
    `/v1/proxy/services/data/v62.0/sobjects/Account`,
    {
      method: 'POST',
      body: { Name: 'Proxy Created' },
    },
  );
  assert.equal(post.status, 201, post.text);
  assert.equal(post.body.success, true);
  const patch = await s.api(`/v1/proxy/services/data/v62.0/sobjects/Account/${post.body.id}`, {
    method: 'PATCH',
    body: { Name: 'Proxy Renamed' },
  });
  assert.equal(patch.status, 204, patch.text);
  assert.equal(patch.text, '');
  const renamed = await s.api<{ Name: string }>(
    `/v1/proxy/services/data/v62.0/sobjects/Account/${post.body.id}`,
    {
      method: 'GET',
    },
  );
  assert.equal(renamed.body.Name, 'Proxy Renamed');
  const del = await s.api(`/v1/proxy/services/data/v62.0/sobjects/Account/${post.body.id}`, {
    method: 'DELETE',
  });
  assert.equal(del.status, 204, del.text);
  const gone = await s.api<Array<{ errorCode: string }>>(
    `/v1/proxy/services/data/v62.0/sobjects/Account/${post.body.id}`,
    { method: 'GET' },
  );
  assert.equal(gone.status, 404);
  assert.equal(gone.body[0]?.errorCode, 'NOT_FOUND');

  // PUT with a CSV body: a Bulk 2.0 upload (not JSON: the pass-through takes any content type).
  const job = await s.api<{ id: string; state: string }>('/v1/proxy/services/data/v62.0/jobs/ingest', {
    method: 'POST',
    body: { object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' },
  });
  assert.equal(job.status, 200, job.text);
  const put = await s.api(`/v1/proxy/services/data/v62.0/jobs/ingest/${job.body.id}/batches`, {
    method: 'PUT',
    rawBody: 'Name\nBulk One\nBulk Two\n',
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(put.status, 201, put.text);
  const info = await s.api<{ state: string }>(`/v1/proxy/services/data/v62.0/jobs/ingest/${job.body.id}`, {
    method: 'GET',
  });
  assert.equal(info.status, 200);
  assert.equal(info.body.state, 'Open');
});

test('Salesforce: error statuses come back with the CRM’s own body and headers', async (t) => {
  const s = await startStack(t);
  const missing = await s.api<Array<{ errorCode: string; message: string }>>(
    '/v1/proxy/services/data/v62.0/sobjects/Account/001000000000000AAA',
    { method: 'GET' },
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.body[0]?.errorCode, 'NOT_FOUND');
  assert.match(missing.headers.get('content-type') ?? '', /application\/json/);
  const bad = await s.api<Array<{ errorCode: string }>>(
    '/v1/proxy/services/data/v62.0/query?q=SELEKT+nothing',
    {
      method: 'GET',
    },
  );
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body[0]?.errorCode, 'MALFORMED_QUERY');
  // Not the service's error envelope: the CRM's answer as it is.
  assert.equal((bad.body as unknown as { error?: unknown }).error, undefined);
});

test('HubSpot: reading and writing records, with every method', async (t) => {
  const s = await startStack(t);
  const token = s.tokens.hubspot;

  // Batch creation: startedAt, completedAt, status and results.
  const batch = await s.api<{ status: string; startedAt: string; completedAt: string; results: HsRecord[] }>(
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/batch/create',
    {
      token,
      body: {
        inputs: [
          { properties: { email: 'ada@example.com', firstname: 'Ada' } },
          { properties: { email: 'alan@example.com', firstname: 'Alan' } },
        ],
      },
    },
  );
  assert.equal(batch.status, 201, batch.text);
  assert.equal(batch.body.status, 'COMPLETE');
  assert.ok(Date.parse(batch.body.startedAt) > 0 && Date.parse(batch.body.completedAt) > 0);
  assert.equal(batch.body.results.length, 2);
  const ada = batch.body.results.find((r) => r.properties['email'] === 'ada@example.com');
  assert.ok(ada);

  // Property list of a standard object; schemas of custom objects.
  const props = await s.api<{ results: Array<{ name: string }> }>(
    '/v1/proxy/https://api.hubapi.com/crm/v3/properties/contacts',
    { token, method: 'GET' },
  );
  assert.equal(props.status, 200, props.text);
  assert.ok(props.body.results.some((p) => p.name === 'email'));
  const schemas = await s.api<{ results: unknown[] }>('/v1/proxy/https://api.hubapi.com/crm/v3/schemas', {
    token,
    method: 'GET',
  });
  assert.equal(schemas.status, 200, schemas.text);
  assert.ok(Array.isArray(schemas.body.results));

  // GET with a query string, PATCH, DELETE.
  const read = await s.api<HsRecord>(
    `/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/${ada.id}?properties=email,firstname`,
    {
      token,
      method: 'GET',
    },
  );
  assert.equal(read.status, 200, read.text);
  assert.equal(read.body.properties['firstname'], 'Ada');
  const patched = await s.api<HsRecord>(
    `/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/${ada.id}`,
    {
      token,
      method: 'PATCH',
      body: { properties: { firstname: 'Augusta' } },
    },
  );
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.properties['firstname'], 'Augusta');
  const removed = await s.api(`/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/${ada.id}`, {
    token,
    method: 'DELETE',
  });
  assert.equal(removed.status, 204, removed.text);
  // Error statuses with HubSpot's body: the archived record is gone.
  const gone = await s.api(`/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/${ada.id}`, {
    token,
    method: 'GET',
  });
  assert.equal(gone.status, 404, gone.text);
  const direct = await fetch(`${s.hs.url}/crm/v3/objects/contacts/${ada.id}`, {
    headers: { authorization: `Bearer ${s.hs.credentials.accessToken}` },
  });
  assert.equal(direct.status, 404);
  const withoutId = (text: string) => text.replace(/"correlationId":"[^"]*"/, '');
  assert.equal(withoutId(gone.text), withoutId(await direct.text()));
  assert.match(gone.text, /"correlationId"/);
  assert.equal(gone.headers.get('content-type'), direct.headers.get('content-type'));
  const invalid = await s.api<{ status: string; category: string }>(
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/batch/create',
    { token, body: { inputs: 'not a list' } },
  );
  assert.equal(invalid.status, 400, invalid.text);
  assert.equal(invalid.body.category, 'VALIDATION_ERROR');
  // PUT reaches HubSpot too (the sandbox has no PUT route here: its own 404/405 comes back).
  s.hs.accounting.reset();
  const put = await s.api(`/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/${ada.id}`, {
    token,
    method: 'PUT',
    body: { properties: {} },
  });
  assert.ok(put.status === 404 || put.status === 405, put.text);
  assert.ok(s.hs.accounting.snapshot().total >= 1);
});

test('Salesforce Bulk 1.0 paths also get the token as X-SFDC-Session; other paths do not', async (t) => {
  const s = await startStack(t);
  const target = await startTarget(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  const token = await connectionTo(s, 'salesforce', target.url);
  for (const path of ['/services/async/62.0/job', '/services/data/v62.0/limits']) {
    const answer = await rawCall(s.baseUrl, `/v1/proxy${path}`, { token });
    assert.equal(answer.status, 200, answer.text);
  }
  assert.equal(target.seen[0]?.headers['x-sfdc-session'], 'sf-access-test');
  assert.equal(target.seen[0]?.headers.authorization, 'Bearer sf-access-test');
  assert.equal(target.seen[1]?.headers['x-sfdc-session'], undefined);
  assert.equal(target.seen[1]?.headers.authorization, 'Bearer sf-access-test');
});
