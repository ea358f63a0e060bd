import { Worker } from 'node:worker_threads';

/** A worker thread running the TypeScript module `entry` with `data` (read it from `workerData.data`). */
export function tsWorker(entry: URL, data: unknown): Worker {
  return new Worker(new URL('./ts-worker.mjs', import.meta.url), { workerData: { entry: entry.href, data } });
}
