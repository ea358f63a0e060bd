// The production topology without containers: several crm-proxy instances on one PostgreSQL
// database and one Redis, nginx (Debian's package) in front, and both sandbox CRMs for them to
// talk to. compose.yaml runs the same shape from images.
//
//   node --import tsx scripts/local-cluster.ts        # prints the nginx URL and two API tokens; Ctrl-C stops it
//
// Environment: DATABASE_URL (an existing database on a server where this user may create
// databases; default postgres://postgres@127.0.0.1:5432/test) — a fresh database is created next to
// it and dropped at the end; REDIS_URL (use that Redis instead of starting one); CLUSTER_INSTANCES
// (default 2). The tests use the module form: `startLocalCluster`.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { ensureSandboxConnections, type SandboxPair, startSandboxes } from '../src/cli/sandbox-bootstrap.ts';
import { loadConfig } from '../src/config/index.ts';
import { type AppContext, createContext } from '../src/context.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A port nobody listens on right now (the caller binds it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it holds; fails naming `what` after `deadlineMs`. */
async function until(what: string, check: () => Promise<boolean>, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolvePing) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('error', () => resolvePing(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolvePing(false);
    });
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolvePing(data.toString().startsWith('+PONG'));
    });
  });
}

export interface LocalRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM; nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
}

/** A redis-server of our own on a free port, without persistence: it can be stopped and started at will. */
export async function startLocalRedis(dir: string): Promise<LocalRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    await until('redis-server to answer PING', () => answersPing(port));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    start,
    async stop() {
      if (child !== undefined) await stopChild(child);
      child = undefined;
    },
  };
}

export interface ClusterInstance {
  url: string;
  port: number;
  /** Its Prometheus listener (`/metrics`), a port of its own as in compose.yaml. */
  metricsUrl: string;
  /** Its log (pino JSON lines). */
  logFile: string;
  readLog(): Promise<string>;
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL): nothing it holds is given back. */
  kill(): Promise<void>;
}

export interface LocalCluster {
  /** nginx, in front of every instance. */
  url: string;
  instances: ClusterInstance[];
  /** The instances' environment (the fresh database, the Redis, the key); `loadConfig(env)` reads it. */
  env: Record<string, string>;
  sandboxes: SandboxPair;
  /** The Redis started for the cluster (undefined: none, or `redisUrl` was given). */
  redis: LocalRedis | undefined;
  /** A context on the cluster's store, as the CLI would have: connections, tokens, operators. */
  admin: AppContext;
  tokens: Record<'salesforce' | 'hubspot', string>;
  connectionIds: Record<'salesforce' | 'hubspot', string>;
  stop(): Promise<void>;
}

export interface LocalClusterOptions {
  instances?: number;
  /** An existing database on the server to use; the cluster's own database is created beside it. */
  databaseUrl?: string;
  /** Use this Redis; `false`: none; default: start one on a free port. */
  redisUrl?: string | false;
  /** More environment for every instance (limits, log level). */
  env?: Record<string, string>;
  /** Options of the sandbox CRMs (rate limits, their clock). */
  sandboxes?: Pick<Parameters<typeof startSandboxes>[0], 'salesforce' | 'hubspot' | 'clock'>;
}

/** Starts the sandboxes, a fresh database, Redis, the instances one by one, and nginx in front. */
export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'crm-proxy-cluster-'));
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const sandboxes = await startSandboxes({
      ports: { salesforce: 0, hubspot: 0 },
      ...options.sandboxes,
    });
    cleanups.push(() => sandboxes.close());

    const databaseUrl = await createDatabase(options.databaseUrl ?? DEFAULT_DATABASE_URL, cleanups);

    let redis: LocalRedis | undefined;
    let redisUrl: string | undefined;
    if (options.redisUrl === undefined) {
      redis = await startLocalRedis(dir);
      cleanups.push(() => redis?.stop() ?? Promise.resolve());
      redisUrl = redis.url;
    } else if (options.redisUrl !== false) {
      redisUrl = options.redisUrl;
    }

    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      CRM_PROXY_SANDBOX: 'false',
      DATABASE_URL: databaseUrl,
      CRM_PROXY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      // The sandboxes' OAuth apps refresh the sandbox connections' tokens.
      SALESFORCE_CLIENT_ID: sandboxes.salesforce.credentials.clientId,
      SALESFORCE_CLIENT_SECRET: sandboxes.salesforce.credentials.clientSecret,
      HUBSPOT_CLIENT_ID: sandboxes.hubspot.credentials.clientId,
      HUBSPOT_CLIENT_SECRET: sandboxes.hubspot.credentials.clientSecret,
      LOG_LEVEL: 'info',
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
      ...options.env,
    };

    // The store's tables, the sandbox connections and their tokens, as `crm-proxy` would make them.
    const admin = await createContext(
      loadConfig({ ...env, PORT: '0', CRM_PROXY_DATA_DIR: join(dir, 'admin'), LOG_LEVEL: 'silent' }),
    );
    cleanups.push(() => admin.close());
    const { tokens, connectionIds } = await ensureSandboxConnections(admin, sandboxes, null);

    const instances: ClusterInstance[] = [];
    // One after the other: the first runs the store's migrations (each waits on a lock anyway).
    for (let i = 0; i < (options.instances ?? 2); i++) {
      const instance = await startInstance(dir, i, env);
      cleanups.push(() => instance.stop());
      instances.push(instance);
    }
    const url = await startNginx(dir, instances, cleanups);
    return {
      url,
      instances,
      env,
      sandboxes,
      redis,
      admin,
      tokens: tokens as LocalCluster['tokens'],
      connectionIds: connectionIds as LocalCluster['connectionIds'],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A fresh database next to `baseUrl`'s, dropped by the cleanup. */
export async function createDatabase(baseUrl: string, cleanups: Array<() => Promise<void>>): Promise<string> {
  const name = `crmp_cluster_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      await c.query(`drop database if exists "${name}" with (force)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startInstance(
  dir: string,
  index: number,
  env: Record<string, string>,
): Promise<ClusterInstance> {
  const port = await freePort();
  const metricsPort = await freePort();
  const dataDir = join(dir, `instance-${index}`);
  await mkdir(dataDir, { recursive: true });
  const logFile = join(dir, `instance-${index}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, ['bin/crm-proxy.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      CRM_PROXY_METRICS_PORT: String(metricsPort),
      CRM_PROXY_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      `instance ${index} to be ready (log: ${logFile})`,
      async () => {
        if (child.exitCode !== null) throw new Error(`instance ${index} exited (log: ${logFile})`);
        return (await fetch(`${url}/readyz`)).status === 200;
      },
      60_000,
    );
  } catch (err) {
    await stopChild(child, 'SIGKILL');
    throw err;
  }
  return {
    url,
    port,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    logFile,
    readLog: () => readFile(logFile, 'utf8'),
    stop: () => stopChild(child),
    kill: () => stopChild(child, 'SIGKILL'),
  };
}

/** nginx in the foreground with a generated configuration: round robin over the instances. */
async function startNginx(
  dir: string,
  instances: ClusterInstance[],
  cleanups: Array<() => Promise<void>>,
): Promise<string> {
  const prefix = join(dir, 'nginx');
  await mkdir(prefix, { recursive: true });
  // Thrown here, the cluster's cleanup stops the instances already started (a failed spawn would
  // otherwise surface as an uncaught 'error' event and leave them running).
  if (!existsSync(nginxBinary()))
    throw new Error(
      `nginx not found at ${nginxBinary()}: apt-get install nginx-light, or set NGINX to its path`,
    );
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const conf = join(prefix, 'nginx.conf');
    await writeFile(conf, nginxConfig(prefix, port, instances));
    const child = spawn(nginxBinary(), ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', conf], {
      stdio: 'ignore',
    });
    child.once('error', () => {});
    const url = `http://127.0.0.1:${port}`;
    try {
      await until('nginx to answer', async () => {
        if (child.exitCode !== null) throw new Error('nginx exited');
        return (await fetch(`${url}/healthz`)).status === 200;
      });
      cleanups.push(() => stopChild(child, 'SIGQUIT'));
      return url;
    } catch (err) {
      await stopChild(child, 'SIGKILL');
      // Someone else took the port between our check and nginx's bind: another one.
      if (attempt >= 3) {
        const log = await readFile(join(prefix, 'error.log'), 'utf8').catch(() => '');
        throw new Error(`nginx did not start: ${String(err)}\n${log}`);
      }
    }
  }
}

function nginxBinary(): string {
  return process.env['NGINX'] ?? '/usr/sbin/nginx';
}

/** Mirrors deploy/nginx.conf, on loopback ports and a private prefix (no root needed). */
export function nginxConfig(prefix: string, port: number, instances: ClusterInstance[]): string {
  const servers = instances.map((i) => `    server 127.0.0.1:${i.port} max_fails=0;`).join('\n');
  return `daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  upstream crm_proxy {
${servers}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 64m;
    proxy_request_buffering off;
    location / {
      proxy_pass http://crm_proxy;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 310s;
      proxy_send_timeout 310s;
      proxy_next_upstream error timeout http_502 http_503;
    }
  }
}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cluster = await startLocalCluster({
    instances: Number(process.env['CLUSTER_INSTANCES'] ?? '2'),
    ...(process.env['DATABASE_URL'] === undefined ? {} : { databaseUrl: process.env['DATABASE_URL'] }),
    ...(process.env['REDIS_URL'] === undefined ? {} : { redisUrl: process.env['REDIS_URL'] }),
  });
  process.stdout.write(
    `${JSON.stringify(
      {
        url: cluster.url,
        instances: cluster.instances.map((i) => ({ url: i.url, log: i.logFile })),
        redis: cluster.env['REDIS_URL'] ?? null,
        tokens: cluster.tokens,
      },
      null,
      2,
    )}\n`,
  );
  const shutdown = () => {
    cluster.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
