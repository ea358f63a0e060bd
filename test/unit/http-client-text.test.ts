import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../src/lib/clock.ts';
import { HttpClient } from '../../src/providers/client/http-client.ts';

test('a CRM answer is decoded as it arrives: characters cut between chunks, a leading BOM dropped, invalid bytes as U+FFFD', async (t) => {
  const text = `${'é😀'.repeat(50_000)},tail`;
  const bytes = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from(text, 'utf8'),
    Buffer.from([0xc3]),
  ]);
  const server = createServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    // Chunks of 4,099 bytes, each flushed apart: cuts inside two-byte and four-byte characters.
    for (let at = 0; at < bytes.length; at += 4_099) {
      res.write(bytes.subarray(at, at + 4_099));
      if (at % (40 * 4_099) === 0) await sleep(1);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const client = new HttpClient({ clock: systemClock });
  t.after(() => client.close());
  const answer = await client.send({
    method: 'GET',
    url: `http://127.0.0.1:${address.port}/results`,
    idempotent: true,
    label: 'test.decode',
  });
  const expected = `${text}\ufffd`;
  assert.equal(answer.text, expected);
});
