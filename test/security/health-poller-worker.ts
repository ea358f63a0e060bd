import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

/**
 * Calls `/healthz` every `everyMs` from its own thread (a poller on the service's thread would
 * itself be held up by a blocked loop and see nothing) and reports each call's start (epoch ms)
 * and latency on 'report'. A call still unanswered at the report counts with its age so far.
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

parentPort?.on('message', async (message: unknown) => {
  if (message === 'report') {
    const t = now();
    parentPort?.postMessage([...done, ...[...pending].map((at) => ({ at, ms: t - at, status: -1 }))]);
  } else if (message === 'stop') {
    clearInterval(timer);
    await pool.close();
    parentPort?.close();
  }
});
