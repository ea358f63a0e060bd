import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { HttpClient } from '../../src/providers/client/http-client.ts';
import { OutboundNetworkError } from '../../src/providers/client/types.ts';

test('a CRM answer trickled without pause is cut off by the attempt deadline', {
  timeout: 30_000,
}, async (t) => {
  // One byte every 20 ms: never silent long enough for the body-idle timeout, never finished.
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 20);
    timers.add(timer);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const timer of timers) clearInterval(timer);
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const client = new HttpClient({ timeoutMs: 200, retry: { maxAttempts: 1 }, clock: systemClock });
  t.after(() => client.close());
  await assert.rejects(
    client.send({
      method: 'GET',
      url: `http://127.0.0.1:${address.port}/services/data`,
      idempotent: true,
      label: 'test.trickle',
    }),
    (error: unknown) => error instanceof OutboundNetworkError && error.kind === 'timeout',
  );
});
