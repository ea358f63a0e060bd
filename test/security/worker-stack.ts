import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { ensureSandboxConnections, type SandboxHandle } from '../../src/cli/sandbox-bootstrap.ts';
import { loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';
import { tsWorker } from './ts-worker.ts';

type SandboxAddress = Pick<SandboxHandle, 'url' | 'credentials'>;

export interface WorkerStack {
  baseUrl: string;
  tokens: { salesforce: string; hubspot: string };
  bodyLimit: number;
}

/**
 * Like test/helpers/stack.ts, but the sandboxes run on a worker thread: this thread runs only the
 * service (and the test's client), so its event-loop delay is the service's own.
 */
export async function startWorkerStack(t: TestContext): Promise<WorkerStack> {
  const worker = tsWorker(new URL('./sandbox-worker.ts', import.meta.url), {});
  const [sandboxes] = (await once(worker, 'message')) as [Record<'salesforce' | 'hubspot', SandboxAddress>];
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-test-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    CRM_PROXY_DATA_DIR: dataDir,
    CRM_PROXY_REGION: 'eu',
    CRM_PROXY_PUBLIC_URL_EU: 'https://eu.crm-proxy.test',
    CRM_PROXY_PUBLIC_URL_US: 'https://us.crm-proxy.test',
    CRM_PROXY_SANDBOX: 'true',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
  });
  const service = await startService(config, {
    sandboxes: { salesforce: sandboxes.salesforce.credentials, hubspot: sandboxes.hubspot.credentials },
  });
  t.after(async () => {
    await service.close();
    worker.postMessage('close');
    await once(worker, 'message');
    await worker.terminate();
    await rm(dataDir, { recursive: true, force: true });
  });
  const { tokens } = await ensureSandboxConnections(service.ctx, sandboxes, null);
  return { baseUrl: service.baseUrl, tokens, bodyLimit: service.ctx.bodyLimit };
}
