// Pass-through replays after a CRM 401: which bodies are copied (and so replayable), the skip
// window after the CRM accepted the connection's token, and the instance's byte budget for copies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { connectionTo, rawCall, startTarget, until } from './v1.proxy.helpers.ts';

const MB = 1024 * 1024;

test('a CRM 401 refreshes the token and replays the request once, body included', async (t) => {
  const s = await startStack(t);
  // Salesforce: a JSON create, after every access token was expired.
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  s.sf.accounting.reset();
  const created = await s.api<{ id: string; success: boolean }>(
    '/v1/proxy/services/data/v62.0/sobjects/Account',
    {
      method: 'POST',
      body: { Name: 'Replayed Once' },
    },
  );
  assert.equal(created.status, 201, created.text);
  const soql = encodeURIComponent("SELECT Id FROM Account WHERE Name = 'Replayed Once'");
  const count = await s.api<{ totalSize: number }>(`/v1/proxy/services/data/v62.0/query?q=${soql}`, {
    method: 'GET',
  });
  assert.equal(count.body.totalSize, 1);
  const calls = s.sf.accounting.snapshot();
  assert.ok(calls.total >= 3, JSON.stringify(calls));

  // HubSpot: a chunked (unknown length) batch create, after expiry.
  await fetch(`${s.hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const body = JSON.stringify({ inputs: [{ properties: { email: 'replay@example.com' } }] });
  const batch = await rawCall(
    s.baseUrl,
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/batch/create',
    {
      method: 'POST',
      token: s.tokens.hubspot,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: async (write) => {
        await write(Buffer.from(body.slice(0, 10)));
        await write(Buffer.from(body.slice(10)));
      },
    },
  );
  assert.equal(batch.status, 201, batch.text);
  assert.equal((JSON.parse(batch.text) as { results: unknown[] }).results.length, 1);
});

test('a 2 MB body is replayed whole after a CRM 401: the copy spans many segments', async (t) => {
  const s = await startStack(t);
  await fetch(`${s.hs.url}/__sandbox/tokens/expire`, { method: 'POST' });
  // 100 contacts, each with a 22 000-character note different from the others: any byte lost,
  // doubled or moved between segments shows in the properties the CRM stores.
  const notes = Array.from({ length: 100 }, (_, i) =>
    `${i}:`.padEnd(22_000, String.fromCharCode(97 + (i % 26))),
  );
  const inputs = notes.map((note, i) => ({ properties: { email: `slab${i}@example.com`, message: note } }));
  const body = JSON.stringify({ inputs });
  assert.ok(body.length > 2 * MB);
  const batch = await rawCall(
    s.baseUrl,
    '/v1/proxy/https://api.hubapi.com/crm/v3/objects/contacts/batch/create',
    {
      method: 'POST',
      token: s.tokens.hubspot,
      headers: { 'content-type': 'application/json' },
      body,
    },
  );
  assert.equal(batch.status, 201, batch.text.slice(0, 500));
  const results = (JSON.parse(batch.text) as { results: Array<{ properties: Record<string, string> }> })
    .results;
  assert.deepEqual(results.map((r) => r.properties['message']).sort(), [...notes].sort());
});

test('the bytes reserved for replay copies all come back to the budget, however the request ends', async (t) => {
  // A window of 0: every body is copied, also after the CRM accepted the token.
  const s = await startStack(t, { env: { CRM_PROXY_REPLAY_SKIP_WINDOW_MS: '0' } });
  const budget = s.ctx.operations.replay.budget;
  const reserved: Record<string, number> = {};
  const target = await startTarget(t, (req, res) => {
    let got = 0;
    req.on('data', (chunk: Buffer) => {
      got += chunk.length;
      reserved[req.url] = Math.max(reserved[req.url] ?? 0, budget.used);
      // Cut: the CRM drops the connection part-way through the upload.
      if (req.url.startsWith('/cut') && got > 100_000) res.socket?.destroy();
    });
    req.on('end', () => {
      res.writeHead(req.url.startsWith('/reject') ? 401 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ got }));
    });
    req.on('error', () => undefined);
  });
  const token = await connectionTo(s, 'salesforce', target.url);
  const body = Buffer.alloc(MB, 'x');
  const call = (path: string) =>
    rawCall(s.baseUrl, `/v1/proxy${path}`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });
  const statuses = [];
  // Answered; dropped by the CRM; refused with a 401 whose refresh fails.
  for (const path of ['/ok', '/cut', '/reject']) statuses.push((await call(path)).status);
  assert.equal(statuses[0], 200);
  assert.equal(statuses[1], 502);
  assert.ok(statuses[2] !== undefined && statuses[2] >= 400, String(statuses[2]));
  assert.ok((reserved['/ok'] ?? 0) >= MB, JSON.stringify(reserved));
  assert.ok((reserved['/reject'] ?? 0) >= MB, JSON.stringify(reserved));
  await until(() => budget.used === 0, 'every reserved byte back in the budget');
});

test('no copy is kept for a token no refresh could replace (a HubSpot private app)', async (t) => {
  const s = await startStack(t);
  const lent: Record<string, number> = {};
  const target = await startTarget(t, (req, res) => {
    req.resume();
    req.on('end', () => {
      // The whole body is here and the CRM has not answered: whatever is kept for a replay is kept now.
      lent[req.url] = s.ctx.operations.replay.budget.used;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  const body = Buffer.alloc(MB, 'y');
  const upload = async (token: string, path: string) =>
    (
      await rawCall(s.baseUrl, `/v1/proxy${path}`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/octet-stream' },
        body,
      })
    ).status;
  // Salesforce over OAuth: a 401 could be answered by a refresh and a replay, so a copy is kept.
  assert.equal(await upload(await connectionTo(s, 'salesforce', target.url), '/oauth'), 200);
  assert.equal(await upload(await connectionTo(s, 'hubspot', target.url), '/private-app'), 200);
  assert.ok((lent['/oauth'] ?? 0) >= MB, JSON.stringify(lent));
  assert.equal(lent['/private-app'], 0);
});

test('a body too large to keep is not replayed: the CRM’s 401 comes back, and the next call works', async (t) => {
  const s = await startStack(t);
  const job = await s.api<{ id: string }>('/v1/proxy/services/data/v62.0/jobs/ingest', {
    method: 'POST',
    body: { object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' },
  });
  assert.equal(job.status, 200, job.text);
  const csv = `Name\n${'Big Row\n'.repeat(Math.ceil((5 * MB) / 8))}`;
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const path = `/v1/proxy/services/data/v62.0/jobs/ingest/${job.body.id}/batches`;
  const call = () =>
    rawCall(s.baseUrl, path, {
      method: 'PUT',
      token: s.tokens.salesforce,
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
  const first = await call();
  assert.equal(first.status, 401, first.text);
  assert.equal(first.headers['x-crm-proxy-replayed'], 'no');
  assert.equal((JSON.parse(first.text) as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_SESSION_ID');
  const second = await call();
  assert.equal(second.status, 201, second.text);
});

/** A stack on a clock that moves only when the test says, and a Salesforce create through the pass-through. */
async function frozenStack(t: Parameters<typeof startStack>[0], env: Record<string, string> = {}) {
  const clock = { at: Date.now() };
  const s = await startStack(t, { env, overrides: { clock: { now: () => clock.at } } });
  const create = (name: string) =>
    s.api<unknown>('/v1/proxy/services/data/v62.0/sobjects/Account', {
      method: 'POST',
      body: { Name: name },
    });
  const count = async (name: string) => {
    const soql = encodeURIComponent(`SELECT Id FROM Account WHERE Name = '${name}'`);
    const answer = await s.api<{ totalSize: number }>(`/v1/proxy/services/data/v62.0/query?q=${soql}`, {
      method: 'GET',
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.totalSize;
  };
  return { s, clock, create, count };
}

test('within the skip window no copy is kept: the CRM’s 401 comes back with X-CRM-Proxy-Replayed: no', async (t) => {
  const { s, create, count } = await frozenStack(t);
  // The CRM accepts the connection's token; then every session ends (as when a user's is revoked).
  assert.equal(await count('Inside Window'), 0);
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const rejected = await create('Inside Window');
  assert.equal(rejected.status, 401, rejected.text);
  assert.equal(rejected.headers.get('x-crm-proxy-replayed'), 'no');
  assert.equal((rejected.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_SESSION_ID');
  assert.equal(s.ctx.operations.replay.budget.used, 0);
  // The token was refreshed meanwhile: the client's retry goes through, and creates one record.
  const retried = await create('Inside Window');
  assert.equal(retried.status, 201, retried.text);
  assert.equal(await count('Inside Window'), 1);
});

test('a call of the service’s own operations on the token counts as the CRM accepting it', async (t) => {
  const { s, create } = await frozenStack(t);
  assert.equal((await s.api('/v1/describe')).status, 200);
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const rejected = await create('After Describe');
  assert.equal(rejected.status, 401, rejected.text);
  assert.equal(rejected.headers.get('x-crm-proxy-replayed'), 'no');
});

test('once the window has passed the body is copied and replayed, as it is with a window of 0', async (t) => {
  const { s, clock, create, count } = await frozenStack(t);
  assert.equal(await count('Outside Window'), 0);
  clock.at += 60_000;
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const replayed = await create('Outside Window');
  assert.equal(replayed.status, 201, replayed.text);
  assert.equal(replayed.headers.get('x-crm-proxy-replayed'), null);
  assert.equal(await count('Outside Window'), 1);

  const always = await frozenStack(t, { CRM_PROXY_REPLAY_SKIP_WINDOW_MS: '0' });
  assert.equal(await always.count('No Window'), 0);
  await fetch(`${always.s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  assert.equal((await always.create('No Window')).status, 201);
  assert.equal(await always.count('No Window'), 1);
});

test('the copy budget is the instance’s: a body that finds it spent is not replayed', async (t) => {
  const s = await startStack(t, {
    env: { CRM_PROXY_REPLAY_SKIP_WINDOW_MS: '0', CRM_PROXY_REPLAY_BUDGET_BYTES: String(1.5 * MB) },
  });
  const budget = s.ctx.operations.replay.budget;
  const jobs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const job = await s.api<{ id: string }>('/v1/proxy/services/data/v62.0/jobs/ingest', {
      method: 'POST',
      body: { object: 'Account', operation: 'insert', contentType: 'CSV', lineEnding: 'LF' },
    });
    assert.equal(job.status, 200, job.text);
    jobs.push(job.body.id);
  }
  await fetch(`${s.sf.url}/__sandbox/tokens/expire`, { method: 'POST' });
  const rows = (n: number) => Buffer.from('Budget Row\n'.repeat(n));
  const put = (
    job: string | undefined,
    body: NonNullable<Parameters<typeof rawCall>[2]>['body'],
    chunked: boolean,
  ) =>
    rawCall(s.baseUrl, `/v1/proxy/services/data/v62.0/jobs/ingest/${job}/batches`, {
      method: 'PUT',
      token: s.tokens.salesforce,
      headers: { 'content-type': 'text/csv', ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) },
      body,
    });
  const finish: Array<() => void> = [];
  const firstMayEnd = new Promise<void>((resolve) => finish.push(resolve));
  // The first upload holds a megabyte of the budget while it is still arriving.
  const first = put(
    jobs[0],
    async (write) => {
      await write(Buffer.concat([Buffer.from('Name\n'), rows(Math.ceil(MB / 11))]));
      await firstMayEnd;
      await write(rows(10));
    },
    true,
  );
  await until(() => budget.used >= MB, 'the first upload’s copy to hold a megabyte');
  const second = await put(jobs[1], Buffer.concat([Buffer.from('Name\n'), rows(Math.ceil(MB / 11))]), false);
  assert.equal(second.status, 401, second.text);
  assert.equal(second.headers['x-crm-proxy-replayed'], 'no');
  for (const resolve of finish) resolve();
  const replayed = await first;
  assert.equal(replayed.status, 201, replayed.text);
  await until(() => budget.used === 0, 'every reserved byte back in the budget');
});
