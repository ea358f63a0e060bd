import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Type } from 'typebox';
import type { HubSpotSandbox, HubSpotSandboxOptions } from '../../sandbox/hubspot/index.ts';
import type { StartSalesforceSandboxOptions } from '../../sandbox/salesforce/index.ts';
import type { RealismConfig } from '../../sandbox/shared/index.ts';
import type { Config } from '../config/index.ts';
import { ConfigError, flag, port, readSettings } from '../config/settings.ts';
import type { AppContext } from '../context.ts';
import { writePrivateFile } from '../lib/private-dir.ts';

type SandboxCrm = 'salesforce' | 'hubspot';

/** A running sandbox as the service sees it: where it listens and the credentials it accepts from the start. */
export interface SandboxHandle {
  url: string;
  credentials: { clientId: string; clientSecret: string; refreshToken: string; accessToken: string };
}

export type SandboxPair = Awaited<ReturnType<typeof startSandboxes>>;

export type BootstrapCredentials = Omit<SandboxHandle['credentials'], 'accessToken'>;

export interface StartSandboxesOptions {
  ports: { salesforce: number; hubspot: number };
  host?: string;
  /** Bootstrap OAuth credentials per sandbox; they decide which refresh token a fresh sandbox accepts. */
  credentials?: Partial<Record<SandboxCrm, BootstrapCredentials>>;
  realism?: Partial<RealismConfig>;
  /** Milliseconds since the epoch for both sandboxes (default `Date.now`): tests pass the service's clock. */
  clock?: () => number;
  /** Each emulator's own options (e.g. `persistDir`: keep its state in that directory across restarts). */
  salesforce?: StartSalesforceSandboxOptions;
  hubspot?: HubSpotSandboxOptions;
}

export async function startSandboxes(options: StartSandboxesOptions) {
  // Loaded here, not with this module: `serve` runs the emulators on their own thread (~25 MiB there).
  const { startSalesforceSandbox } = await import('../../sandbox/salesforce/index.ts');
  const { startHubSpotSandbox } = await import('../../sandbox/hubspot/index.ts');
  const common = { host: options.host ?? '127.0.0.1', realism: options.realism, clock: options.clock };
  const salesforce = await startSalesforceSandbox({
    ...common,
    port: options.ports.salesforce,
    credentials: options.credentials?.salesforce,
    ...options.salesforce,
  });
  let hubspot: HubSpotSandbox;
  try {
    hubspot = await startHubSpotSandbox({
      ...common,
      port: options.ports.hubspot,
      credentials: options.credentials?.hubspot,
      ...options.hubspot,
    });
  } catch (err) {
    await salesforce.close();
    throw err;
  }
  return {
    salesforce,
    hubspot,
    async close() {
      await Promise.allSettled([salesforce.close(), hubspot.close()]);
    },
  };
}

export type ServeSandboxes = Record<SandboxCrm, SandboxHandle> & { close(): Promise<void> };

export function contextSandboxes({ salesforce, hubspot }: ServeSandboxes) {
  return {
    salesforce: { ...salesforce.credentials, url: salesforce.url },
    hubspot: { ...hubspot.credentials, url: hubspot.url },
  };
}

/** The launcher's own settings, read beside the service's: only the sandboxes use them. */
const LAUNCHER_SETTINGS = Type.Object({
  salesforcePort: Type.Optional(port('CRM_PROXY_SANDBOX_SF_PORT')),
  hubspotPort: Type.Optional(port('CRM_PROXY_SANDBOX_HS_PORT')),
  persist: flag('CRM_PROXY_SANDBOX_PERSIST', true),
});

export type LauncherSettings = ReturnType<typeof launcherSettings>;

/** Where the sandboxes listen (unset: PORT+1 and PORT+2, any free port when PORT is 0), and whether they keep their state. */
export function launcherSettings(env: NodeJS.ProcessEnv, servicePort: number) {
  const problems: string[] = [];
  const { salesforcePort, hubspotPort, persist } = readSettings(LAUNCHER_SETTINGS, env, problems);
  if (problems.length > 0) throw new ConfigError(...problems);
  const next = (k: number) => (servicePort === 0 ? 0 : servicePort + k);
  return { ports: { salesforce: salesforcePort ?? next(1), hubspot: hubspotPort ?? next(2) }, persist };
}

/** The sandboxes `serve` runs, on a thread of their own so a busy sandbox never delays the service. */
export async function startServeSandboxes(
  config: Config,
  { ports, persist: keep }: LauncherSettings,
  onFailure: (message: string) => void = () => {},
): Promise<ServeSandboxes> {
  const persist = keep ? { persistDir: config.dataDir } : undefined;
  const options: StartSandboxesOptions = {
    ports,
    host: config.host,
    credentials: loadOrCreateBootstrapCredentials(config.dataDir),
    ...(persist === undefined ? {} : { salesforce: persist, hubspot: persist }),
  };
  // Compiled (dist/), this module and the thread's are .js files.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const worker = new Worker(new URL(`./sandbox-thread.${ext}`, import.meta.url), { workerData: options });
  const exited = new Promise<number>((done) => worker.once('exit', done));
  // `once` rejects with the thread's 'error' event; a number is the code of a thread that ended first.
  const [message] = (await Promise.race([once(worker, 'message'), exited.then((code) => [code])])) as [
    { ready?: Record<SandboxCrm, SandboxHandle>; failed?: string } | number,
  ];
  if (typeof message === 'number')
    throw new Error(`the sandbox thread exited (code ${message}) before the sandboxes started`);
  if (message.ready === undefined) throw new Error(message.failed);
  let closing = false;
  worker.on('error', (err) => onFailure(`the sandbox thread failed: ${err.message}`));
  void exited.then((code) => {
    if (!closing) onFailure(`the sandbox thread exited (code ${code}); the sandboxes are down`);
  });
  return {
    ...message.ready,
    async close() {
      if (!closing) worker.postMessage('close');
      closing = true;
      await exited;
    },
  };
}

const CREDENTIALS_FILE = 'sandbox-credentials.json';

/** Both sandboxes' bootstrap credentials, generated once per data directory so every start reuses them. */
export function loadOrCreateBootstrapCredentials(dataDir: string): Record<SandboxCrm, BootstrapCredentials> {
  const parsed = readBootstrapCredentials(dataDir);
  if (parsed?.salesforce?.refreshToken && parsed.hubspot?.refreshToken)
    return parsed as Record<SandboxCrm, BootstrapCredentials>;
  const random = (bytes: number) => randomBytes(bytes).toString('base64url').replace(/[-_]/g, '');
  const created: Record<SandboxCrm, BootstrapCredentials> = {
    salesforce: {
      clientId: `3MVG9${random(48)}`,
      clientSecret: random(32).toUpperCase(),
      refreshToken: `5Aep861${random(48)}`,
    },
    hubspot: {
      clientId: randomUUID(),
      clientSecret: randomUUID(),
      refreshToken: `na1-${random(24)}`,
    },
  };
  writePrivateFile(join(dataDir, CREDENTIALS_FILE), `${JSON.stringify(created, null, 2)}\n`);
  return created;
}

/** A JSON file of the data directory; null when missing or unreadable. */
function readDataFile<T>(dataDir: string, name: string): T | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, name), 'utf8')) as T;
  } catch {
    return null;
  }
}

export function readBootstrapCredentials(dataDir: string) {
  return readDataFile<Partial<Record<SandboxCrm, Partial<BootstrapCredentials>>>>(dataDir, CREDENTIALS_FILE);
}

export interface SandboxFile {
  base_url: string;
  tokens: Record<SandboxCrm, string>;
  sandboxes: Record<SandboxCrm, { url: string; access_token: string }>;
}

export function readSandboxFile(dataDir: string): SandboxFile | null {
  return readDataFile<SandboxFile>(dataDir, 'sandbox.json');
}

export function writeSandboxFile(dataDir: string, content: SandboxFile): string {
  const file = join(dataDir, 'sandbox.json');
  writePrivateFile(file, `${JSON.stringify(content, null, 2)}\n`);
  return file;
}

/** One sandbox connection and API token per CRM, reused on later starts. */
export async function ensureSandboxConnections(
  ctx: AppContext,
  // Only where each sandbox listens and its bootstrap credentials: a sandbox may run elsewhere.
  sandboxes: Record<SandboxCrm, SandboxHandle & { accountId?: string }>,
  previous: SandboxFile | null,
): Promise<{ tokens: Record<SandboxCrm, string>; connectionIds: Record<SandboxCrm, string> }> {
  const tokens = {} as Record<SandboxCrm, string>;
  const connectionIds = {} as Record<SandboxCrm, string>;
  const existing = await ctx.connections.list();
  for (const provider of ['salesforce', 'hubspot'] as const) {
    const sandbox = sandboxes[provider];
    const credentials = {
      kind: 'oauth' as const,
      refreshToken: sandbox.credentials.refreshToken,
      accessToken: sandbox.credentials.accessToken,
    };
    const previousToken = previous?.tokens[provider];
    const verified = previousToken === undefined ? null : await ctx.auth.verify(`Bearer ${previousToken}`);
    let connection =
      verified?.ok === true && verified.connection.provider === provider && verified.connection.sandbox
        ? verified.connection
        : existing.find((c) => c.sandbox && c.provider === provider && c.apiBaseUrl === sandbox.url);
    if (connection !== undefined && connection.apiBaseUrl !== sandbox.url) connection = undefined;
    if (connection === undefined) {
      const created = await ctx.connections.create({
        provider,
        label: `${provider} sandbox`,
        instanceUrl: provider === 'salesforce' ? sandbox.url : null,
        apiBaseUrl: sandbox.url,
        sandbox: true,
        credentials,
      });
      if (!created.ok)
        throw new Error(`could not create the ${provider} sandbox connection: ${created.message}`);
      connection = created.connection;
    } else {
      // A restarted sandbox only accepts its bootstrap credentials: put them back (and mark active).
      await ctx.connections.reauthorize(connection.id, credentials);
      ctx.tokens.forget(connection.id);
    }
    connectionIds[provider] = connection.id;
    // The account it reaches, as a browser-made connection's check call would learn it.
    if (sandbox.accountId !== undefined && connection.accountId !== sandbox.accountId) {
      await ctx.connections.setAccount(connection.id, {
        accountId: sandbox.accountId,
        loginUrl: connection.loginUrl,
        instanceUrl: connection.instanceUrl,
      });
    }
    if (verified?.ok === true && verified.connection.id === connection.id && previousToken !== undefined) {
      tokens[provider] = previousToken;
    } else {
      const token = await ctx.auth.createToken({ connectionId: connection.id, name: `${provider} sandbox` });
      if (!token.ok) throw new Error(`could not create the ${provider} sandbox token: ${token.message}`);
      tokens[provider] = token.token;
    }
  }
  return { tokens, connectionIds };
}
