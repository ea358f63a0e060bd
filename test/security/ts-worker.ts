import { Worker } from 'node:worker_threads';

/** A worker thread running the TypeScript module `entry` with `data` (read it from `workerData.data`). */
export function tsWorker(entry: URL, data: unknown): Worker {
  return new Worker(entry, { workerData: { entry: entry.href, data } });
}
