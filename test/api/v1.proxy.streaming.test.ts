import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { connectionTo, rawCall, startTarget, until } from './v1.proxy.helpers.ts';

const MB = 1024 * 1024;

test('a 5 MB upload is streamed: the target reads the first part before the client sends the rest', async (t) => {
  const s = await startStack(t);
  let received = 0;
  const hash = createHash('sha256');
  const target = await startTarget(t, (req, res) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      hash.update(chunk);
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes: received, sha256: hash.digest('hex') }));
    });
  });
  const token = await connectionTo(s, 'hubspot', target.url);
  const sent = createHash('sha256');
  const answer = await rawCall(s.baseUrl, '/v1/proxy/https://api.hubapi.com/files/v3/files?mode=stream', {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    body: async (write) => {
      for (let i = 0; i < 5; i++) {
        const chunk = Buffer.alloc(MB, i + 1);
        sent.update(chunk);
        await write(chunk);
        // Not before the target has the previous megabyte: a buffering proxy would hang here.
        await until(() => received >= (i + 1) * MB, `${i + 1} MB at the target`);
      }
    },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(JSON.parse(answer.text), { bytes: 5 * MB, sha256: sent.digest('hex') });
  assert.equal(target.seen[0]?.url, '/files/v3/files?mode=stream');
  assert.equal(target.seen[0]?.headers['transfer-encoding'], 'chunked');
});

test('a response is streamed: the client gets the first part before the target sends the rest', async (t) => {
  const s = await startStack(t);
  let clientGot = 0;
  const target = await startTarget(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv' });
    void (async () => {
      for (let i = 0; i < 4; i++) {
        res.write(Buffer.alloc(MB, 65 + i));
        await until(() => clientGot >= (i + 1) * MB, `${i + 1} MB at the client`);
      }
      res.end();
    })();
  });
  const token = await connectionTo(s, 'salesforce', target.url);
  const response = await fetch(
    `${s.baseUrl}/v1/proxy/${target.url}/services/data/v62.0/jobs/query/750/results`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/csv');
  const reader = response.body?.getReader();
  assert.ok(reader);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    clientGot += value.length;
  }
  assert.equal(clientGot, 4 * MB);
});

test('a small answer that arrived whole goes out in one piece with its length, even when the CRM chunked it', async (t) => {
  const s = await startStack(t);
  const body = JSON.stringify({ totalSize: 1, records: [{ Id: '001000000000001AAA' }] });
  const target = await startTarget(t, (_req, res) => {
    // One write: head, the one chunk and the last chunk reach the service together.
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.end(body);
  });
  const token = await connectionTo(s, 'salesforce', target.url);
  const answer = await rawCall(
    s.baseUrl,
    `/v1/proxy/${target.url}/services/data/v62.0/query?q=SELECT+Id+FROM+Account`,
    {
      token,
    },
  );
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.text, body);
  // Streamed, it would have gone out chunked; as bytes it carries its length.
  assert.equal(answer.headers['content-length'], String(Buffer.byteLength(body)));
  assert.equal(answer.headers['transfer-encoding'], undefined);
  assert.equal(answer.headers['content-type'], 'application/json');
});

test('a 5 MB CSV upload reaches Salesforce Bulk 2.0 through the pass-through', async (t) => {
  const s = await startStack(t);
  const job = await s.api<{ id: string }>('/v1/proxy/services/data/v62.0/jobs/ingest', {
    method: 'POST',
    body: { object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' },
  });
  assert.equal(job.status, 200, job.text);
  const rows = ['Name,Description'];
  for (let i = 0, size = 0; size < 5 * MB; i++) {
    const row = `Bulk ${i},${'x'.repeat(200)}`;
    rows.push(row);
    size += row.length + 1;
  }
  const csv = `${rows.join('\n')}\n`;
  assert.ok(csv.length >= 5 * MB);
  const put = await rawCall(s.baseUrl, `/v1/proxy/services/data/v62.0/jobs/ingest/${job.body.id}/batches`, {
    method: 'PUT',
    token: s.tokens.salesforce,
    headers: { 'content-type': 'text/csv' },
    body: csv,
  });
  assert.equal(put.status, 201, put.text);
  const close = await s.api<{ state: string }>(`/v1/proxy/services/data/v62.0/jobs/ingest/${job.body.id}`, {
    method: 'PATCH',
    body: { state: 'UploadComplete' },
  });
  assert.equal(close.status, 200, close.text);
  assert.equal(close.body.state, 'UploadComplete');
});

test('headers: an allow-list goes out, never the client’s Authorization or cookies; hop-by-hop ones stay behind', async (t) => {
  const s = await startStack(t);
  const target = await startTarget(t, (req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json;charset=UTF-8');
    res.setHeader('etag', '"v1"');
    res.setHeader('sforce-limit-info', 'api-usage=1/15000');
    res.setHeader('set-cookie', 'BrowserId=abc; Path=/');
    res.setHeader('keep-alive', 'timeout=5');
    res.setHeader('x-request-id', 'crm-side-id');
    res.writeHead(412);
    res.end('[{"errorCode":"PRECONDITION_FAILED","message":"etag mismatch"}]');
  });
  const sfToken = await connectionTo(s, 'salesforce', target.url);
  const answer = await rawCall(
    s.baseUrl,
    `/v1/proxy/${target.url}/services/data/v62.0/sobjects/Account/001?x=1&y=2`,
    {
      method: 'PATCH',
      token: sfToken,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'if-match': '"v0"',
        'sforce-auto-assign': 'FALSE',
        'sforce-duplicate-rule-header': 'allowSave=true',
        'sforce-query-options': 'batchSize=200',
        cookie: 'sid=client-secret',
        'x-forwarded-for': '10.0.0.1',
        'x-custom': 'nope',
      },
      body: '{"Name":"x"}',
    },
  );
  assert.equal(answer.status, 412);
  assert.equal(answer.text, '[{"errorCode":"PRECONDITION_FAILED","message":"etag mismatch"}]');
  assert.equal(answer.headers['etag'], '"v1"');
  assert.equal(answer.headers['sforce-limit-info'], 'api-usage=1/15000');
  assert.equal(answer.headers['content-type'], 'application/json;charset=UTF-8');
  assert.equal(answer.headers['set-cookie'], undefined);
  assert.equal(answer.headers['keep-alive'] === 'timeout=5', false);
  assert.equal(answer.headers['x-crm-request-id'], 'crm-side-id');
  assert.notEqual(answer.headers['x-request-id'], 'crm-side-id');

  const seen = target.seen[0];
  assert.ok(seen);
  assert.equal(seen.method, 'PATCH');
  assert.equal(seen.url, '/services/data/v62.0/sobjects/Account/001?x=1&y=2');
  assert.equal(seen.headers.authorization, 'Bearer sf-access-test');
  assert.equal(seen.headers['if-match'], '"v0"');
  assert.equal(seen.headers['sforce-auto-assign'], 'FALSE');
  assert.equal(seen.headers['sforce-duplicate-rule-header'], 'allowSave=true');
  assert.equal(seen.headers['sforce-query-options'], 'batchSize=200');
  assert.equal(seen.headers.cookie, undefined);
  assert.equal(seen.headers['x-forwarded-for'], undefined);
  assert.equal(seen.headers['x-custom'], undefined);

  // HubSpot: the private-app token goes out; Salesforce's option headers do not.
  const hsToken = await connectionTo(s, 'hubspot', target.url);
  await rawCall(s.baseUrl, '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts', {
    token: hsToken,
    headers: { 'sforce-auto-assign': 'FALSE', 'if-none-match': '"a"' },
  });
  const hs = target.seen[1];
  assert.equal(hs?.headers.authorization, 'Bearer pat-test-token');
  assert.equal(hs?.headers['sforce-auto-assign'], undefined);
  assert.equal(hs?.headers['if-none-match'], '"a"');
});

test('an unreachable target is the service’s own 502; nothing else is', async (t) => {
  const s = await startStack(t);
  const target = await startTarget(t, (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '3' });
    res.end('{"status":"error","message":"down for maintenance"}');
  });
  const token = await connectionTo(s, 'hubspot', target.url);
  const closedToken = await connectionTo(s, 'hubspot', `http://127.0.0.1:${await freePort()}`);
  const answer = await s.api<{ error: { code: string; details: Array<{ provider: string }> } }>(
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts',
    { token: closedToken, method: 'GET' },
  );
  assert.equal(answer.status, 502, answer.text);
  assert.equal(answer.body.error.code, 'crm_unreachable');
  assert.equal(answer.body.error.details[0]?.provider, 'hubspot');
  assert.ok(answer.headers.get('x-request-id'));
  // A 5xx from a reachable target is the target's answer, not the service's (and is not retried).
  const down = await s.api<{ message: string }>('/v1/proxy/https://api.hubapi.com/x', {
    token,
    method: 'GET',
  });
  assert.equal(down.status, 503);
  assert.equal(down.body.message, 'down for maintenance');
  assert.equal(down.headers.get('retry-after'), '3');
  assert.equal(target.seen.length, 1);
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('HubSpot: a 429 comes back as it is, not retried by the pass-through', async (t) => {
  const s = await startStack(t);
  const target = await startTarget(t, (req, res) => {
    req.resume();
    res.writeHead(429, {
      'content-type': 'application/json;charset=utf-8',
      'x-hubspot-ratelimit-remaining': '0',
      'x-hubspot-ratelimit-interval-milliseconds': '10000',
    });
    res.end(
      '{"status":"error","message":"You have reached your ten_secondly_rolling limit.","errorType":"RATE_LIMIT","policyName":"TEN_SECONDLY_ROLLING"}',
    );
  });
  const token = await connectionTo(s, 'hubspot', target.url);
  const answer = await s.api<{ errorType: string; policyName: string }>(
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/search',
    { token, body: { limit: 1 } },
  );
  assert.equal(answer.status, 429, answer.text);
  assert.equal(answer.body.errorType, 'RATE_LIMIT');
  assert.equal(answer.headers.get('x-hubspot-ratelimit-remaining'), '0');
  assert.equal(target.seen.length, 1);
});

test('a client that drops its upload half-way leaves the service and the target healthy', async (t) => {
  const s = await startStack(t);
  let targetGot = 0;
  let targetSawEnd = false;
  let targetClosed = false;
  const target = await startTarget(t, (req, res) => {
    req.on('close', () => {
      targetClosed = true;
    });
    req.on('data', (chunk: Buffer) => {
      targetGot += chunk.length;
    });
    req.on('end', () => {
      targetSawEnd = true;
      res.end('{}');
    });
    req.on('error', () => undefined);
  });
  const token = await connectionTo(s, 'hubspot', target.url);
  const { request } = await import('node:http');
  const base = new URL(s.baseUrl);
  const req = request({
    host: base.hostname,
    port: base.port,
    method: 'POST',
    path: '/v1/proxy/https://api.hubapi.com/files/v3/files',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/octet-stream',
      'content-length': String(4 * MB),
    },
  });
  req.on('error', () => undefined);
  req.write(Buffer.alloc(MB));
  await until(() => targetGot >= MB, 'the first megabyte at the target');
  req.destroy();
  // The target's upload ends (aborted) rather than hanging, and the service keeps serving.
  await until(() => targetClosed, 'the aborted upload to end at the target');
  const after = await s.api('/v1/proxy/https://api.hubapi.com/crm/v3/properties/contacts', {
    token: s.tokens.hubspot,
    method: 'GET',
  });
  assert.equal(after.status, 200);
  assert.equal(targetSawEnd, false);
  assert.ok(targetGot < 4 * MB);
});
