import { parentPort, workerData } from 'node:worker_threads';
import { startSandboxes } from '../../src/cli/sandbox-bootstrap.ts';

/**
 * Both sandbox CRMs on their own thread, so their CPU work (parsing a bulk upload, say) does not
 * count as the service's event-loop time. Posts where they listen, closes them on 'close'.
 */
const options = (workerData as { data: { bulkResultOrder?: 'input' | 'shuffled' } }).data;
const sandboxes = await startSandboxes({ ports: { salesforce: 0, hubspot: 0 }, salesforce: options });
const pick = (s: { url: string; credentials: unknown }) => ({ url: s.url, credentials: s.credentials });
parentPort?.postMessage({ salesforce: pick(sandboxes.salesforce), hubspot: pick(sandboxes.hubspot) });
parentPort?.on('message', async (message: unknown) => {
  if (message !== 'close') return;
  await sandboxes.close();
  parentPort?.postMessage('closed');
  parentPort?.close();
});
