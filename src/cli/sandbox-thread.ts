import { parentPort, workerData } from 'node:worker_threads';
import { type StartSandboxesOptions, startSandboxes } from './sandbox-bootstrap.ts';

// Both sandbox CRMs on a thread of their own (see startServeSandboxes): posts where they listen and
// their credentials, or why they could not start; closes them on 'close'.
const port = parentPort;
if (port === null) throw new Error('sandbox-thread.ts runs as a worker thread');
try {
  const sandboxes = await startSandboxes(workerData as StartSandboxesOptions);
  const pick = (s: { url: string; credentials: unknown }) => ({ url: s.url, credentials: s.credentials });
  port.on('message', async (message: unknown) => {
    if (message !== 'close') return;
    await sandboxes.close();
    port.close();
  });
  port.postMessage({ ready: { salesforce: pick(sandboxes.salesforce), hubspot: pick(sandboxes.hubspot) } });
} catch (err) {
  port.postMessage({ failed: err instanceof Error ? err.message : String(err) });
  port.close();
}
