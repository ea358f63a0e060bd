// Starts a TypeScript module on a worker thread: a worker does not always inherit the loader
// hooks of the thread that made it (that depends on how the test runner started), so it
// registers tsx itself, then imports `workerData.entry`.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
