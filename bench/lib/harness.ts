// What the service benchmarks share: a Salesforce sandbox in its own process, the service started
// in-process on a temporary store, and a sandbox connection with an API token.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config/index.ts';
import { startService } from '../../src/main.ts';

export interface SandboxCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  accessToken: string;
}

export interface SalesforceSandboxProcess {
  url: string;
  credentials: SandboxCredentials;
  /** Ids of the accounts seeded for the run. */
  ids: string[];
  pid: number;
  /** Drops every Account but the seeded ones. */
  prune(): Promise<void>;
  stop(): void;
}

/**
 * Starts bench/salesforce-sandbox-process.ts with `accounts` seeded accounts. Its own process (and
 * core) means direct and proxied calls pay for the same sandbox work, and the memory measured in
 * this process is the service's alone.
 */
export async function spawnSalesforceSandbox(accounts: number): Promise<SalesforceSandboxProcess> {
  const child = spawn(process.execPath, ['bench/salesforce-sandbox-process.ts', String(accounts)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const firstLine = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code}`)));
  });
  const info = JSON.parse(firstLine) as Omit<SalesforceSandboxProcess, 'stop' | 'pid' | 'prune'>;
  return {
    ...info,
    pid: child.pid ?? 0,
    prune: () =>
      new Promise<void>((resolve) => {
        lines.once('line', () => resolve());
        child.stdin.write('prune\n');
      }),
    stop: () => child.stdin.end(),
  };
}

/**
 * The sandbox's control API (`/__sandbox/...`) of the sandbox at `url`: a call answers its JSON
 * body (`{}` when empty) and throws on an error status, so a benchmark never measures a sandbox
 * that refused its settings.
 */
export function sandboxControl(url: string) {
  return async (path: string, method = 'GET', body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${url}/__sandbox${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox ${path}: ${response.status} ${text.slice(0, 300)}`);
    return (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
  };
}

type Service = Awaited<ReturnType<typeof startService>>;
type Connection = Awaited<ReturnType<Service['ctx']['connections']['list']>>[number];

export interface BenchService {
  service: Service;
  /** Adds a sandbox connection of `provider` and returns it with a fresh API token. */
  connect(
    provider: 'salesforce' | 'hubspot',
    sandbox: { url: string; credentials: SandboxCredentials },
  ): Promise<{ connection: Connection; token: string }>;
  close(): Promise<void>;
}

/** The service on port 0 with a temporary store, its own rate limit off, trusting the sandboxes' OAuth clients. */
export async function startBenchService(clients: {
  salesforce?: SandboxCredentials;
  hubspot?: SandboxCredentials;
}): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-bench-'));
  const config = loadConfig({
    PORT: '0',
    CRM_PROXY_DATA_DIR: dataDir,
    CRM_PROXY_SANDBOX: 'true',
    LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'silent',
    CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
  });
  const service = await startService(config, { sandboxes: clients });
  return {
    service,
    async connect(provider, sandbox) {
      const created = await service.ctx.connections.create({
        provider,
        label: 'bench sandbox',
        instanceUrl: provider === 'salesforce' ? sandbox.url : null,
        apiBaseUrl: sandbox.url,
        sandbox: true,
        credentials: {
          kind: 'oauth',
          refreshToken: sandbox.credentials.refreshToken,
          accessToken: sandbox.credentials.accessToken,
        },
      });
      if (!created.ok) throw new Error(created.message);
      const token = await service.ctx.auth.createToken({ connectionId: created.connection.id });
      if (!token.ok) throw new Error(token.message);
      return { connection: created.connection, token: token.token };
    },
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
