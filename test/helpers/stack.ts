import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import type { RealismConfig } from '../../sandbox/shared/index.ts';
import {
  ensureSandboxConnections,
  type SandboxPair,
  startSandboxes,
} from '../../src/cli/sandbox-bootstrap.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { AppContext, ContextOverrides } from '../../src/context.ts';
import { startService } from '../../src/main.ts';
import type { Store } from '../../src/store/types.ts';
import { StackClock } from './stack-clock.ts';

export interface StackOptions {
  /** Run the store on PostgreSQL (DATABASE_URL or the local test database) in a fresh schema. */
  postgres?: boolean;
  region?: 'eu' | 'us';
  env?: Record<string, string>;
  salesforce?: {
    rotateRefreshTokens?: boolean;
    accessTokenTtlSeconds?: number;
    dailyApiRequests?: number;
    apiRequestsUsed?: number;
    bulkResultOrder?: 'input' | 'shuffled';
    /** State and Country/Territory Picklists on Account (default true). */
    addressPicklists?: boolean;
  };
  hubspot?: { accessTokenTtlSeconds?: number; batchResultOrder?: 'input' | 'shuffled' };
  realism?: Partial<RealismConfig>;
  /** The seams a test may set (every setting goes through `env`, as a user sets it). */
  overrides?: Pick<ContextOverrides, 'logger' | 'clock' | 'providers'>;
}

export interface ApiCall {
  token?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding) when a string. */
  rawBody?: string;
  method?: string;
  headers?: Record<string, string>;
}

export interface ApiAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Stack {
  baseUrl: string;
  /** The /metrics listener's URL when CRM_PROXY_METRICS_PORT is set in `env`. */
  metricsUrl: string | undefined;
  tokens: { salesforce: string; hubspot: string };
  connectionIds: { salesforce: string; hubspot: string };
  sf: SandboxPair['salesforce'];
  hs: SandboxPair['hubspot'];
  store: Store;
  ctx: AppContext;
  /**
   * The one clock of the service and both sandboxes (real time unless moved on; wraps
   * `overrides.clock` when the test gave one): advance it rather than wait.
   */
  clock: StackClock;
  /** PostgreSQL only: the schema of this stack's tables (another context can open the same store). */
  pgSchema: string | undefined;
  /** Stops the service (in-flight requests finish first) and the sandboxes; also run by `t.after`. */
  close(): Promise<void>;
  /** Connections the service's HTTP server holds open right now. */
  openConnections(): Promise<number>;
  /** Calls the service; `token` defaults to the Salesforce sandbox token (null: no Authorization header). */
  api<T = unknown>(path: string, call?: ApiCall): Promise<ApiAnswer<T>>;
}

let schemaSeq = 0;

export const TEST_DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Both sandboxes and the service on port 0 with a temp data dir; closed in `t.after`. */
export async function startStack(t: TestContext, options: StackOptions = {}): Promise<Stack> {
  const stack = await openStack(options);
  t.after(stack.close);
  return stack;
}

/**
 * One stack for the tests of a file: call it at the file's top level; the first test that asks
 * starts the stack, the others get the same one, and it closes after the file's last test. For
 * tests that need no fresh CRM: each makes its own records and resets the accounting it counts.
 */
export function sharedStack(options: StackOptions = {}): () => Promise<Stack> {
  let started: Promise<Stack> | undefined;
  after(async () => {
    await (await started?.catch(() => undefined))?.close();
  });
  return () => {
    started ??= openStack(options);
    return started;
  };
}

async function openStack(options: StackOptions): Promise<Stack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'crm-proxy-test-'));
  const clock = new StackClock(options.overrides?.clock);
  const sandboxes = await startSandboxes({
    ports: { salesforce: 0, hubspot: 0 },
    clock: () => clock.now(),
    ...(options.realism === undefined ? {} : { realism: options.realism }),
    ...(options.salesforce === undefined ? {} : { salesforce: options.salesforce }),
    ...(options.hubspot === undefined ? {} : { hubspot: options.hubspot }),
  });
  const config = loadConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      CRM_PROXY_DATA_DIR: dataDir,
      CRM_PROXY_REGION: options.region ?? 'eu',
      CRM_PROXY_PUBLIC_URL_EU: 'https://eu.crm-proxy.test',
      CRM_PROXY_PUBLIC_URL_US: 'https://us.crm-proxy.test',
      CRM_PROXY_SANDBOX: 'true',
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      ...(options.postgres === true ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
      ...options.env,
    },
    options.overrides?.providers,
  );
  // The sequence number keeps two stacks started in the same millisecond by one process apart.
  const pgSchema =
    options.postgres === true ? `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}` : undefined;
  const service = await startService(config, {
    ...options.overrides,
    clock,
    ...(pgSchema === undefined ? {} : { pgSchema }),
    sandboxes: {
      salesforce: { ...sandboxes.salesforce.credentials, url: sandboxes.salesforce.url },
      hubspot: { ...sandboxes.hubspot.credentials, url: sandboxes.hubspot.url },
    },
  });
  const unwatch = clock.watchCalls([sandboxes.salesforce.url, sandboxes.hubspot.url]);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      unwatch();
      await service.close();
      await sandboxes.close();
      await rm(dataDir, { recursive: true, force: true });
    })();
    return closing;
  };
  const { tokens, connectionIds } = await ensureSandboxConnections(service.ctx, sandboxes, null);

  async function api<T>(path: string, call: ApiCall = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...call.headers };
    const token = call.token === undefined ? tokens.salesforce : call.token;
    if (token !== null) headers['authorization'] ??= `Bearer ${token}`;
    let body: string | undefined = call.rawBody;
    if (body === undefined && call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${service.baseUrl}${path}`, {
      method: call.method ?? 'POST',
      headers,
      body,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (the docs page): keep the text.
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  return {
    baseUrl: service.baseUrl,
    metricsUrl: service.metricsUrl,
    tokens,
    connectionIds,
    sf: sandboxes.salesforce,
    hs: sandboxes.hubspot,
    store: service.ctx.store,
    ctx: service.ctx,
    clock,
    pgSchema,
    close,
    api,
    openConnections: () =>
      new Promise<number>((resolve, reject) =>
        service.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      ),
  };
}
