import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { SALESFORCE_PROFILE } from '../../src/providers/salesforce/profile.ts';
import { ProxyBody, type ReplayKeeping } from '../../src/proxy/body.ts';
import { forwardedRequestHeaders, returnedResponseHeaders } from '../../src/proxy/headers.ts';
import { ReplayBudget } from '../../src/proxy/replay-copy.ts';

test('request headers: the allow-list only, Sforce-* for Salesforce alone', () => {
  const incoming = {
    authorization: 'Bearer crmp_eu_secret',
    cookie: 'sid=1',
    host: 'proxy.example',
    'content-type': 'application/json',
    'content-length': '12',
    accept: 'application/json',
    'if-match': '"1"',
    'if-unmodified-since': 'Wed, 21 Oct 2026 07:28:00 GMT',
    'sforce-call-options': 'client=x',
    'x-prettyprint': '1',
    'x-forwarded-for': '1.2.3.4',
    connection: 'keep-alive',
  };
  assert.deepEqual(forwardedRequestHeaders(incoming, SALESFORCE_PROFILE.passthrough.forwardedHeaders), {
    'content-type': 'application/json',
    accept: 'application/json',
    'if-match': '"1"',
    'if-unmodified-since': 'Wed, 21 Oct 2026 07:28:00 GMT',
    'sforce-call-options': 'client=x',
    'x-prettyprint': '1',
  });
  assert.deepEqual(forwardedRequestHeaders(incoming, { names: [], prefixes: [] }), {
    'content-type': 'application/json',
    accept: 'application/json',
    'if-match': '"1"',
    'if-unmodified-since': 'Wed, 21 Oct 2026 07:28:00 GMT',
  });
});

test('response headers: hop-by-hop, Connection-listed and Set-Cookie removed; the rest as is', () => {
  assert.deepEqual(
    returnedResponseHeaders({
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'x-hop': '1',
      'set-cookie': ['a=1', 'b=2'],
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      location: 'https://elsewhere.example/x',
      'x-hubspot-ratelimit-remaining': '99',
      'x-request-id': 'crm-id',
      vary: undefined,
    }),
    {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      location: 'https://elsewhere.example/x',
      'x-hubspot-ratelimit-remaining': '99',
      'x-crm-request-id': 'crm-id',
    },
  );
});

/** Copies of up to `limit` bytes, from a budget of their own. */
function keep(limit: number): ReplayKeeping {
  return { budget: new ReplayBudget(1024 * 1024), limit };
}

async function drain(stream: Readable | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

test('a small body streams and can be replayed; a large one streams and cannot', async () => {
  const small = new ProxyBody(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), undefined, keep(10));
  assert.equal((await drain(small.stream)).toString(), 'abcd');
  assert.equal((await small.replay())?.toString(), 'abcd');

  const large = new ProxyBody(Readable.from([Buffer.alloc(8), Buffer.alloc(8)]), undefined, keep(10));
  assert.equal((await drain(large.stream)).length, 16);
  assert.equal(await large.replay(), null);

  const declared = new ProxyBody(Readable.from([Buffer.alloc(4)]), 40, keep(10));
  assert.equal((await drain(declared.stream)).length, 4);
  assert.equal(await declared.replay(), null);

  const none = new ProxyBody(undefined, undefined, keep(10));
  assert.equal(none.stream, undefined);
  assert.equal(await none.replay(), undefined);
});

test('a replay reads what the first attempt left unread', async () => {
  const source = new Readable({ read() {} });
  const body = new ProxyBody(source, undefined, keep(100));
  source.push(Buffer.from('first-'));
  // The first attempt read nothing (the CRM answered early); the rest arrives afterwards.
  const replay = body.replay();
  source.push(Buffer.from('second'));
  source.push(null);
  assert.equal((await replay)?.toString(), 'first-second');
});
