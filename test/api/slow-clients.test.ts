// Slow and stalled clients through real sockets: each is cut off by its configured bound and told
// why where a status can still be sent, and the service keeps answering meanwhile. Timeouts are
// short here (1–3 s) so the tests are quick; every wait has a deadline of 10x or more, which only
// guards against a hang and measures nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openRaw, parseAnswer, type RawClient, requestHead } from '../helpers/raw-socket.ts';
import { type Stack, startStack } from '../helpers/stack.ts';
import { connectionTo, startTarget } from './v1.proxy.helpers.ts';

const SHORT = {
  CRM_PROXY_HEADERS_TIMEOUT_MS: '1000',
  CRM_PROXY_REQUEST_TIMEOUT_MS: '3000',
  CRM_PROXY_BODY_IDLE_TIMEOUT_MS: '1000',
  CRM_PROXY_KEEP_ALIVE_TIMEOUT_MS: '1000',
};
/** 10x the longest configured timeout, plus Node's one-second keep-alive margin. */
const DEADLINE_MS = 40_000;

interface ErrorAnswer {
  error: { code: string; message: string; details: unknown[] };
  request_id: string;
}

function errorOf(client: RawClient): { status: number; headers: Record<string, string>; body: ErrorAnswer } {
  const answer = parseAnswer(client.received());
  return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.body) as ErrorAnswer };
}

/** Writes `chunk` every `everyMs` until the server closes the connection. */
function trickle(client: RawClient, chunk: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (client.isClosed()) clearInterval(timer);
    else client.write(chunk);
  }, everyMs);
  client.socket.once('close', () => clearInterval(timer));
}

/** A CRM stand-in that streams an endless answer as fast as the service takes it. */
function pumpingTarget(t: Parameters<typeof startTarget>[0], onClose: () => void) {
  return startTarget(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv' });
    const chunk = Buffer.alloc(64 * 1024, 65);
    // Backpressure stops this once the client stops reading.
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) {}
    };
    res.on('drain', pump);
    res.on('close', onClose);
    pump();
  });
}

async function healthy(s: Stack): Promise<void> {
  const answer = await s.api('/healthz', { method: 'GET', token: null });
  assert.equal(answer.status, 200);
}

async function settledConnections(s: Stack, expected: number): Promise<number> {
  // The server notices a closed socket a tick after the client does.
  const deadline = Date.now() + DEADLINE_MS;
  let count = await s.openConnections();
  while (count > expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    count = await s.openConnections();
  }
  return count;
}

test('slow clients are cut off by their timeouts, and the service keeps answering', async (t) => {
  const s = await startStack(t, { env: SHORT });
  const auth = `Bearer ${s.tokens.salesforce}`;

  await t.test('slow headers (slowloris): 408 request_timeout once the header deadline passes', async () => {
    const client = await openRaw(s.baseUrl);
    client.write('POST /v1/describe HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header byte every 200 ms: never silent for long, never finished.
    trickle(client, 'X', 200);
    await healthy(s);
    await client.closed(DEADLINE_MS, 'headers trickled byte by byte');
    const answer = errorOf(client);
    assert.equal(answer.status, 408);
    assert.equal(answer.body.error.code, 'request_timeout');
    assert.match(answer.body.error.message, /headers.*CRM_PROXY_HEADERS_TIMEOUT_MS/);
    assert.equal(answer.headers['connection'], 'close');
    assert.equal(answer.headers['x-request-id'], answer.body.request_id);
  });

  await t.test('a JSON route whose body stalls: 408 after the body-idle timeout, socket closed', async () => {
    const client = await openRaw(s.baseUrl);
    client.write(
      requestHead('POST', '/v1/object/get/Account', {
        Authorization: auth,
        'Content-Type': 'application/json',
        'Content-Length': '1000',
      }),
    );
    client.write('{"data":');
    await healthy(s);
    await client.closed(DEADLINE_MS, 'JSON body stalled after 8 of 1000 bytes');
    const answer = errorOf(client);
    assert.equal(answer.status, 408);
    assert.equal(answer.body.error.code, 'request_timeout');
    assert.match(answer.body.error.message, /CRM_PROXY_BODY_IDLE_TIMEOUT_MS/);
    assert.deepEqual(answer.body.error.details, [
      { limit_ms: 1000, setting: 'CRM_PROXY_BODY_IDLE_TIMEOUT_MS' },
    ]);
  });

  await t.test('pass-through whose upload stalls: 408, and the request to the CRM is aborted', async (t) => {
    let targetGot = 0;
    let targetAborted = false;
    const target = await startTarget(t, (req, res) => {
      req.on('data', (chunk: Buffer) => {
        targetGot += chunk.length;
      });
      req.on('close', () => {
        if (!(req as typeof req & { complete: boolean }).complete) targetAborted = true;
      });
      req.on('end', () => res.end('{}'));
    });
    const token = await connectionTo(s, 'hubspot', target.url);
    const client = await openRaw(s.baseUrl);
    client.write(
      requestHead('POST', '/v1/proxy/https://api.hubapi.com/files/v3/files', {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/octet-stream',
        'Content-Length': '1000',
      }),
    );
    client.write('12345678');
    await client.closed(DEADLINE_MS, 'pass-through body stalled after 8 of 1000 bytes');
    const answer = errorOf(client);
    assert.equal(answer.status, 408);
    assert.equal(answer.body.error.code, 'request_timeout');
    const deadline = Date.now() + DEADLINE_MS;
    while (!targetAborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(targetAborted, 'the upload to the CRM was aborted');
    assert.equal(targetGot, 8);
    await healthy(s);
  });

  await t.test(
    'a client that stops reading a streamed answer is closed, and so is the CRM stream',
    async (t) => {
      let targetClosed = false;
      const target = await pumpingTarget(t, () => {
        targetClosed = true;
      });
      const token = await connectionTo(s, 'salesforce', target.url);
      const client = await openRaw(s.baseUrl);
      client.socket.pause();
      client.write(
        requestHead('GET', `/v1/proxy/${target.url}/services/data/v62.0/jobs/query/750/results`, {
          Authorization: `Bearer ${token}`,
        }),
      );
      const deadline = Date.now() + DEADLINE_MS;
      while (!targetClosed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(targetClosed, 'the CRM stream was ended');
      // The client has not closed its end: only the service can have closed this connection.
      assert.equal(await settledConnections(s, 0), 0);
      assert.equal(client.socket.destroyed, false);
      client.socket.destroy();
      await healthy(s);
    },
  );

  await t.test('a body trickled without pause: 408 once the whole-request deadline passes', async () => {
    const client = await openRaw(s.baseUrl);
    client.write(
      requestHead('POST', '/v1/object/get/Account', {
        Authorization: auth,
        'Content-Type': 'application/json',
        'Content-Length': '100000',
      }),
    );
    trickle(client, ' ', 200);
    await client.closed(DEADLINE_MS, 'body trickled byte by byte');
    const answer = errorOf(client);
    assert.equal(answer.status, 408);
    assert.equal(answer.body.error.code, 'request_timeout');
    assert.match(answer.body.error.message, /whole request.*CRM_PROXY_REQUEST_TIMEOUT_MS/);
  });

  await t.test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const client = await openRaw(s.baseUrl);
    client.write(requestHead('GET', '/healthz', {}));
    await client.closed(DEADLINE_MS, 'idle after one answered request');
    const answer = parseAnswer(client.received());
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['connection'], 'keep-alive');
  });

  await t.test('200 half-open sockets are each closed by their timeout; none is left open', async () => {
    const clients: RawClient[] = [];
    for (let i = 0; i < 200; i++) {
      const client = await openRaw(s.baseUrl);
      if (i % 2 === 0) {
        client.write('POST /v1/object/get/Account HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      } else {
        client.write(
          requestHead('POST', '/v1/object/get/Account', {
            Authorization: auth,
            'Content-Type': 'application/json',
            'Content-Length': '1000',
          }),
        );
        client.write('{"data":');
      }
      clients.push(client);
    }
    await healthy(s);
    await Promise.all(clients.map((c, i) => c.closed(DEADLINE_MS, `half-open socket ${i}`)));
    for (const client of clients) assert.equal(errorOf(client).status, 408);
    await healthy(s);
    const open = await settledConnections(s, 0);
    t.diagnostic(`open server-side connections after the slow clients: ${open}`);
    assert.equal(open, 0);
  });
});

test('an unauthenticated request with an unread body is answered 401 and its socket closed at once', async (t) => {
  // Default (long) timeouts: only the answer itself can close this socket within the deadline.
  const s = await startStack(t);
  const client = await openRaw(s.baseUrl);
  client.write(
    requestHead('POST', '/v1/object/get/Account', {
      'Content-Type': 'application/json',
      'Content-Length': '1000',
    }),
  );
  client.write('{"data":');
  await client.closed(10_000, '401 with 992 body bytes never sent');
  const answer = errorOf(client);
  assert.equal(answer.status, 401);
  assert.equal(answer.body.error.code, 'missing_token');
  assert.equal(answer.headers['connection'], 'close');
  await healthy(s);
});

test('connections beyond the per-client cap are closed at once; freeing one lets the next in', async (t) => {
  const s = await startStack(t, {
    env: {
      CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT: '5',
      CRM_PROXY_CONNECTION_CAP_EXEMPT: 'none',
      // The held sockets send nothing: keep them clear of the header deadline however slow the machine.
      CRM_PROXY_HEADERS_TIMEOUT_MS: '120000',
    },
  });
  const held: RawClient[] = [];
  for (let i = 0; i < 5; i++) held.push(await openRaw(s.baseUrl));
  // The held sockets stay; the sixth is refused, not timed out.
  const sixth = await openRaw(s.baseUrl);
  await sixth.closed(10_000, 'a sixth connection from the same address');
  assert.equal(sixth.received(), '');
  for (const client of held) assert.equal(client.isClosed(), false);
  await assert.rejects(s.api('/healthz', { method: 'GET', token: null }));

  held[0]?.socket.destroy();
  await settledConnections(s, 4);
  const next = await openRaw(s.baseUrl);
  next.write(requestHead('GET', '/healthz', { Connection: 'close' }));
  await next.closed(10_000, 'a /healthz answered with Connection: close');
  assert.equal(parseAnswer(next.received()).status, 200);
  for (const client of held) client.socket.destroy();
});

test('a client that stops reading an answer is released within the body-idle timeout, not twice it', async (t) => {
  const idleMs = 4000;
  const s = await startStack(t, { env: { ...SHORT, CRM_PROXY_BODY_IDLE_TIMEOUT_MS: String(idleMs) } });
  const target = await pumpingTarget(t, () => {});
  const token = await connectionTo(s, 'salesforce', target.url);
  const client = await openRaw(s.baseUrl);
  client.socket.pause();
  const sent = Date.now();
  client.write(
    requestHead('GET', `/v1/proxy/${target.url}/services/data/v62.0/jobs/query/751/results`, {
      Authorization: `Bearer ${token}`,
    }),
  );
  assert.equal(await settledConnections(s, 0), 0);
  const releasedMs = Date.now() - sent;
  t.diagnostic(`released ${releasedMs} ms after the request, body-idle timeout ${idleMs} ms`);
  // Node's socket timeout alone released it after about 2x; the margin covers busy cores.
  assert.ok(releasedMs < idleMs * 1.75, `released after ${releasedMs} ms`);
  client.socket.destroy();
});

test('a client that stops reading a JSON answer is released within a second of the body-idle timeout', async (t) => {
  // An idle timeout of 8 s: the answer was checked every 2 s (a quarter of it), and a client that
  // stopped reading was released up to 2 s late; now it is checked at least every second.
  const idleMs = 8000;
  const s = await startStack(t, { env: { ...SHORT, CRM_PROXY_BODY_IDLE_TIMEOUT_MS: String(idleMs) } });
  // 2 000 accounts of 3 KB: a 6 MB answer, more than the socket buffers of both ends hold.
  s.sf.org.insert(
    'Account',
    Array.from({ length: 2000 }, (_, i) => ({ Name: `Unread ${i}`, Description: 'd'.repeat(3000) })),
  );
  const body = JSON.stringify({ data: 'SELECT Id, Name, Description FROM Account' });
  const client = await openRaw(s.baseUrl);
  let firstByte = 0;
  client.socket.once('data', () => {
    // The answer has started: the client stops reading from here on.
    firstByte = Date.now();
    client.socket.pause();
  });
  client.write(
    `${requestHead('POST', '/v1/object/soql', {
      Authorization: `Bearer ${s.tokens.salesforce}`,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    })}${body}`,
  );
  assert.equal(await settledConnections(s, 0), 0);
  const releasedMs = Date.now() - firstByte;
  t.diagnostic(`released ${releasedMs} ms after the answer started, body-idle timeout ${idleMs} ms`);
  // The bound, a second, and the moments the buffers took to fill.
  assert.ok(firstByte > 0, 'the answer started');
  assert.ok(releasedMs < idleMs + 1000 + 500, `released after ${releasedMs} ms`);
  client.socket.destroy();
});
