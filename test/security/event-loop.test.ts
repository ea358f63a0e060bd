import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { tsWorker } from './ts-worker.ts';
import { startWorkerStack } from './worker-stack.ts';
import { sendInput, worstInputs } from './worst-inputs.ts';

/**
 * The worst inputs at the size limits, one after another, while another thread calls /healthz:
 * each is answered (accepted or refused, never a 500) and /healthz answers every call. How long
 * each holds the event loop is measured by `npm run bench -- event-loop`, not here.
 */
test('the worst inputs at the size limits are answered without a 500; /healthz keeps answering', async (t) => {
  const s = await startWorkerStack(t);
  const poller = tsWorker(new URL('./health-poller-worker.ts', import.meta.url), {
    baseUrl: s.baseUrl,
    everyMs: 50,
  });
  t.after(() => poller.terminate());
  for (const input of worstInputs(s.bodyLimit)) {
    const answer = await sendInput(s.baseUrl, s.tokens[input.token], input, input.body?.());
    assert.ok(answer.status > 0 && answer.status < 500, `${input.name}: status ${answer.status}`);
  }
  poller.postMessage('report');
  const [samples] = (await once(poller, 'message')) as [Array<{ status: number }>];
  assert.ok(samples.length > 0);
  for (const x of samples) assert.equal(x.status, 200, '/healthz answered every call');
});
