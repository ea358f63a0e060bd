import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { LoopDelay } from './loop-delay.ts';
import { rawRequest } from './raw-http.ts';
import { tsWorker } from './ts-worker.ts';
import { startWorkerStack } from './worker-stack.ts';
import { worstInputs } from './worst-inputs.ts';

/** Longest the service's event loop may be blocked by any one of the inputs. */
const LOOP_BUDGET_MS = 50;
const POLL_EVERY_MS = 20;
/** Pause before each request, so one input's garbage is not collected in the next one's window. */
const SETTLE_MS = 200;
/**
 * Sends of an input over the budget before its best figure counts (see below): a busy neighbour on
 * the other core can stretch any one send, but not five in a row the way a real block recurs.
 */
const TRIES = 5;

interface Sample {
  at: number;
  ms: number;
  status: number;
}

const epochNow = () => performance.timeOrigin + performance.now();

/**
 * The worst inputs at the size limits, one after another, while another thread calls /healthz
 * every 20 ms. The figure asserted on is the longest event-loop block in this thread, which runs
 * only the service and this client (the sandboxes have their own thread), counted in this thread's
 * CPU time where Linux tells it (`LoopDelay`): a busy neighbour process stretches a turn's wall
 * time but not its work, so the figure holds on a loaded machine where a wall-clock latency would
 * not. The wall-clock block and the health latencies are reported beside it.
 */
test('event loop: the worst inputs at the size limits never block the service; /healthz keeps answering', async (t) => {
  const s = await startWorkerStack(t);
  const poller = tsWorker(new URL('./health-poller-worker.ts', import.meta.url), {
    baseUrl: s.baseUrl,
    everyMs: POLL_EVERY_MS,
  });
  t.after(() => poller.terminate());
  const loop = new LoopDelay();
  t.after(() => loop.stop());
  const runs: Array<{
    name: string;
    status: number;
    loopMs: number;
    wallMs: number;
    start: number;
    end: number;
    bytes: number;
  }> = [];

  for (const input of worstInputs(s.bodyLimit)) {
    const body = input.body?.();
    const headers: Array<[string, string]> = [['Authorization', `Bearer ${s.tokens[input.token]}`]];
    if (body !== undefined && !input.headers?.some(([h]) => h.toLowerCase() === 'content-type'))
      headers.push(['Content-Type', 'application/json']);
    headers.push(...(input.headers ?? []));
    const send = async () => {
      // Let the build of the body and the garbage of the previous input go before the window opens.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      loop.reset();
      const start = epochNow();
      const answer = await rawRequest(s.baseUrl, {
        method: input.method,
        path: input.path,
        headers,
        ...(body === undefined ? {} : { body }),
        timeoutMs: 300_000,
      });
      return {
        status: answer.status,
        loopMs: loop.maxMs(),
        wallMs: loop.wallMaxMs(),
        start,
        end: epochNow(),
      };
    };
    // A block the input causes recurs on every try; a stall from a busy neighbour or a late
    // collection does not: over the budget, the input is sent again and its best try counts.
    let best = await send();
    for (let tries = 1; tries < TRIES && best.loopMs >= LOOP_BUDGET_MS; tries += 1) {
      const again = await send();
      if (again.loopMs < best.loopMs) best = again;
    }
    runs.push({ name: input.name, ...best, bytes: body?.length ?? 0 });
  }

  poller.postMessage('report');
  const [samples] = (await once(poller, 'message')) as [Sample[]];
  const healthDuring = (start: number, end: number) =>
    Math.max(0, ...samples.filter((x) => x.at >= start && x.at <= end).map((x) => x.ms));
  for (const r of runs) {
    t.diagnostic(
      `${r.loopMs.toFixed(0).padStart(5)} ms loop (${r.wallMs.toFixed(0)} ms wall), ${healthDuring(r.start, r.end).toFixed(0).padStart(5)} ms /healthz, ${r.status}, ${(r.bytes / 1e6).toFixed(1)} MB: ${r.name}`,
    );
  }
  const worst = runs.reduce((a, b) => (b.loopMs > a.loopMs ? b : a));
  t.diagnostic(`worst event-loop delay ${worst.loopMs.toFixed(0)} ms on: ${worst.name}`);
  t.diagnostic(
    `/healthz calls: ${samples.length}, slowest ${Math.max(...samples.map((x) => x.ms)).toFixed(0)} ms`,
  );

  for (const r of runs) assert.ok(r.status > 0 && r.status < 500, `${r.name}: status ${r.status}`);
  assert.ok(samples.length > 0);
  for (const x of samples) assert.equal(x.status, 200, '/healthz answered every call');
  for (const r of runs) {
    assert.ok(
      r.loopMs < LOOP_BUDGET_MS,
      `${r.name}: event loop blocked ${r.loopMs.toFixed(0)} ms (budget ${LOOP_BUDGET_MS} ms)`,
    );
  }
});
