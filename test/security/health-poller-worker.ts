import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

/**
 * Calls `/healthz` every `everyMs` from its own thread (a poller on the service's thread would
 * itself be held up by a blocked loop and see nothing) and reports each call's start (epoch ms)
 * and latency on 'report', after the calls in flight have finished (or a deadline passed).
 */
const { baseUrl, everyMs } = (workerData as { data: { baseUrl: string; everyMs: number } }).data;
const pool = new Pool(baseUrl, { connections: 8 });
const now = () => performance.timeOrigin + performance.now();
const done: Array<{ at: number; ms: number; status: number }> = [];
const pending = new Set<number>();

const timer = setInterval(() => {
  // A blocked service would otherwise pile up calls that then queue behind each other.
  if (pending.size >= 8) return;
  const at = now();
  pending.add(at);
  pool
    .request({ path: '/healthz', method: 'GET' })
    .then(async (res) => {
      await res.body.dump();
      done.push({ at, ms: now() - at, status: res.statusCode });
    })
    .catch(() => done.push({ at, ms: now() - at, status: 0 }))
    .finally(() => pending.delete(at));
}, everyMs);

/** Calls still unanswered this long after the polling stopped are reported as such (status -1). */
const DRAIN_DEADLINE_MS = 10_000;

parentPort?.on('message', async (message: unknown) => {
  if (message === 'report') {
    // Stop calling, and let the calls in flight finish, so the last one is not counted as lost.
    clearInterval(timer);
    const deadline = now() + DRAIN_DEADLINE_MS;
    while (pending.size > 0 && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const t = now();
    parentPort?.postMessage([...done, ...[...pending].map((at) => ({ at, ms: t - at, status: -1 }))]);
  } else if (message === 'stop') {
    clearInterval(timer);
    await pool.close();
    parentPort?.close();
  }
});
