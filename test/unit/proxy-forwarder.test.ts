import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { ProxyForwarder, TargetUnreachableError } from '../../src/proxy/forwarder.ts';

async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('no answer before the headers timeout, a TLS failure, a refused connection: all unreachable', async (t) => {
  const forwarder = new ProxyForwarder({ headersTimeoutMs: 150, connectTimeoutMs: 2_000 });
  t.after(() => forwarder.close());
  const silent = await listen(() => {
    // Never answers.
  });
  t.after(() => silent.close());
  const send = (url: string) => forwarder.send({ method: 'GET', url, headers: {}, body: undefined });

  await assert.rejects(send(`http://127.0.0.1:${silent.port}/x`), (error: unknown) => {
    assert.ok(error instanceof TargetUnreachableError);
    assert.equal(error.code, 'UND_ERR_HEADERS_TIMEOUT');
    return true;
  });
  // https to a plain-http listener: the TLS handshake fails.
  await assert.rejects(send(`https://127.0.0.1:${silent.port}/x`), TargetUnreachableError);
  const closed = await listen(() => undefined);
  const port = closed.port;
  await closed.close();
  await assert.rejects(send(`http://127.0.0.1:${port}/x`), (error: unknown) => {
    assert.ok(error instanceof TargetUnreachableError);
    assert.equal(error.code, 'ECONNREFUSED');
    return true;
  });
});

test('a redirect is handed back, not followed', async (t) => {
  const forwarder = new ProxyForwarder();
  t.after(() => forwarder.close());
  let hits = 0;
  const target = await listen((_req, res) => {
    hits++;
    res.writeHead(307, { location: '/elsewhere' });
    res.end();
  });
  t.after(() => target.close());
  const answer = await forwarder.send({
    method: 'POST',
    url: `http://127.0.0.1:${target.port}/start`,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{}'),
  });
  await answer.body.dump();
  assert.equal(answer.status, 307);
  assert.equal(answer.headers['location'], '/elsewhere');
  assert.equal(hits, 1);
});
