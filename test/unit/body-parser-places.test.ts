// Large JSON bodies are parsed a few at a time (the jsonParser plugin). A batch write keeps its place
// until it lets go of its body (releaseBody: its job stored, or run directly); any other route lets
// go once the body is parsed, so a request busy with a slow CRM call never holds up the others.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import Fastify from 'fastify';
import { jsonParser, releaseBody } from '../../src/http/plugins/body-parser.ts';
import '../../src/http/plugins/openapi.ts';
import { waitFor } from '../helpers/wait.ts';

/** A body of about 1.5 MB: two of them are more than the bytes parsed at once (2 MiB). */
const large = (tag: string) => JSON.stringify({ data: [{ tag, text: 'x'.repeat(1_500_000) }] });

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

async function appWith(operation: 'get' | 'insert', releaseInHandler: boolean) {
  const app = Fastify();
  await app.register(jsonParser, { bodyLimit: 8 * 1024 * 1024 });
  const entered: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  app.post('/route', { schema: { 'x-crm-operation': operation } }, async (request) => {
    const tag = (request.body as { data: Array<{ tag: string }> }).data[0]?.tag ?? '';
    entered.push(tag);
    if (releaseInHandler) releaseBody(request);
    const g = gate();
    gates.set(tag, g);
    await g.opened;
    return { tag };
  });
  await app.ready();
  const send = (tag: string) =>
    app.inject({
      method: 'POST',
      url: '/route',
      headers: { 'content-type': 'application/json' },
      payload: large(tag),
    });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  return { app, entered, gates, send, settle };
}

test('a route that is not a batch write lets go of its place once its body is parsed', async () => {
  const { app, entered, gates, send } = await appWith('get', false);
  const first = send('a');
  await waitFor('the handler of a', () => entered.includes('a'));
  // The first request is busy in its handler: the second body is parsed all the same.
  const second = send('b');
  await waitFor('the handler of b', () => entered.includes('b'));
  gates.get('a')?.open();
  gates.get('b')?.open();
  assert.equal((await first).statusCode, 200);
  assert.equal((await second).statusCode, 200);
  await app.close();
});

test('a batch write keeps its place until it lets go of its body, then the next body is parsed', async () => {
  const held = await appWith('insert', false);
  const first = held.send('a');
  await waitFor('the handler of a', () => held.entered.includes('a'));
  const second = held.send('b');
  // Several turns of the event loop: the second body waits its turn while the first holds its place.
  for (let k = 0; k < 5; k++) await held.settle();
  assert.deepEqual(held.entered, ['a']);
  held.gates.get('a')?.open();
  assert.equal((await first).statusCode, 200);
  await waitFor('the handler of b', () => held.entered.includes('b'));
  held.gates.get('b')?.open();
  assert.equal((await second).statusCode, 200);
  await held.app.close();

  // Letting go in the handler (a job stored, a direct write started) admits the next at once.
  const released = await appWith('insert', true);
  const third = released.send('c');
  await waitFor('the handler of c', () => released.entered.includes('c'));
  const fourth = released.send('d');
  await waitFor('the handler of d', () => released.entered.includes('d'));
  released.gates.get('c')?.open();
  released.gates.get('d')?.open();
  assert.equal((await third).statusCode, 200);
  assert.equal((await fourth).statusCode, 200);
  await released.app.close();
});

test('a large body waiting for its place is left unread until its turn', async () => {
  const held = await appWith('insert', false);
  const first = held.send('a');
  await waitFor('the handler of a', () => held.entered.includes('a'));
  const bytes = Buffer.from(large('b'));
  let pulled = 0;
  // The client's body, handed over as the server reads it.
  const body = Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 16 * 1024) {
        const chunk = bytes.subarray(at, at + 16 * 1024);
        pulled += chunk.length;
        yield chunk;
      }
    })(),
    { objectMode: false, highWaterMark: 16 * 1024 },
  );
  const second = held.app.inject({
    method: 'POST',
    url: '/route',
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length) },
    payload: body,
  });
  for (let k = 0; k < 5; k++) await held.settle();
  assert.deepEqual(held.entered, ['a']);
  // A few stream buffers' worth at most, not the 1.5 MB body.
  assert.ok(pulled < 256 * 1024, `${pulled} bytes read while waiting`);
  held.gates.get('a')?.open();
  assert.equal((await first).statusCode, 200);
  await waitFor('the handler of b', () => held.entered.includes('b'));
  assert.equal(pulled, bytes.length);
  held.gates.get('b')?.open();
  assert.equal((await second).statusCode, 200);
  await held.app.close();
});
