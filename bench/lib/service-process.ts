// The service as its own child process, run the way users run it: `npm start`'s node arguments,
// the default log level unless told otherwise, stdout and stderr going to a file (or /dev/null) at the OS level — the service's
// logging is paid for, not silenced in code. Benchmarks drive it over HTTP from other processes
// and read its memory from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config/index.ts';
import { createContext } from '../../src/context.ts';
import { pinned } from './pin.ts';

/** Node's arguments in the package's own start scripts: the service runs with the flags users get. */
function scriptArgs(name: string): string[] {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  const [command, ...args] = (scripts[name] ?? '').split(' ');
  if (command !== 'node') throw new Error(`package.json script ${name} does not start node`);
  return args;
}

const ENTRY = scriptArgs('start');
/** The start script's V8 flags alone (ENTRY less the launcher and its command), for baselines run beside the service. */
export const START_FLAGS = ENTRY.filter((a) => a.startsWith('--'));

/** A data directory and the environment every process using it shares (store, encryption key). */
export interface ServiceData {
  dataDir: string;
  env: Record<string, string>;
}

/** A fresh data directory with its own encryption key; sandbox mode off, as in production. */
export function createServiceData(extraEnv: Record<string, string> = {}): ServiceData {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-proxy-bench-'));
  return {
    dataDir,
    env: {
      CRM_PROXY_DATA_DIR: dataDir,
      CRM_PROXY_SANDBOX: 'false',
      CRM_PROXY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      ...extraEnv,
    },
  };
}

export interface SeededConnection {
  connectionId: string;
  /** API token of the connection (`Authorization: Bearer …` on /v1). */
  token: string;
}

/**
 * Stores a connection to a local CRM (a sandbox or a bench upstream at `url`) with a ready access
 * token, and an API token for it, before the service starts on the same data directory — what an
 * operator does with the CLI, without the CLI's check call against the CRM.
 */
export async function seedConnection(
  data: ServiceData,
  input: { provider: 'salesforce' | 'hubspot'; url: string; accessToken: string; refreshToken?: string },
): Promise<SeededConnection> {
  const config = loadConfig({ ...data.env, PORT: '0', LOG_LEVEL: 'silent' });
  const ctx = await createContext(config);
  try {
    const created = await ctx.connections.create({
      provider: input.provider,
      label: 'bench',
      instanceUrl: input.provider === 'salesforce' ? input.url : null,
      apiBaseUrl: input.url,
      sandbox: true,
      credentials: {
        kind: 'oauth',
        refreshToken: input.refreshToken ?? 'bench-refresh-token',
        accessToken: input.accessToken,
      },
    });
    if (!created.ok) throw new Error(created.message);
    const token = await ctx.auth.createToken({ connectionId: created.connection.id });
    if (!token.ok) throw new Error(token.message);
    return { connectionId: created.connection.id, token: token.token };
  } finally {
    await ctx.close();
  }
}

export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** Where the service's stdout and stderr went. */
  logFile: string;
  /** Resident set size now, from /proc (Linux). */
  rssMiB(): number;
  /** Samples RSS every `everyMs` until the returned function is called, which gives the peak. */
  samplePeakRss(everyMs?: number): () => number;
  /** SIGTERM, then waits for the exit (a --cpu-prof profile is written by then). */
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  data: ServiceData;
  /** Extra environment (LOG_LEVEL, limits, …); the service's defaults otherwise. */
  env?: Record<string, string>;
  /** Node options before the entry, e.g. ['--cpu-prof', '--cpu-prof-dir=prof']. */
  nodeArgs?: string[];
  /** Where stdout and stderr go (default: a file in the data directory). '/dev/null' discards them. */
  logFile?: string;
  startTimeoutMs?: number;
}

/** Resident set size of a process in MiB, from /proc (Linux). */
export function rssMiBOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/**
 * Samples a process's RSS every `everyMs` until the returned function is called, which answers the
 * peak in MiB. `alive` says whether the process can still be read (a stopped one has no /proc entry).
 */
export function samplePeakRss(pid: number, everyMs = 50, alive: () => boolean = () => true): () => number {
  let peak = rssMiBOf(pid);
  const timer = setInterval(() => {
    if (alive()) peak = Math.max(peak, rssMiBOf(pid));
  }, everyMs);
  return () => {
    clearInterval(timer);
    if (alive()) peak = Math.max(peak, rssMiBOf(pid));
    return peak;
  };
}

/** User + system CPU in ms from a /proc stat line (Linux; clock ticks of 10 ms). */
function statCpuMs(stat: string): number {
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time (user + system) a process has used so far, in ms, all its threads together. */
export function cpuMsOf(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** CPU time of the process's main thread alone (JavaScript runs there; V8's GC helpers and the thread pool do not). */
export function mainThreadCpuMsOf(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
}

/**
 * Starts `serve` on a free port and waits for /readyz. The rate limit is off unless `env` sets it.
 * `BENCH_PROFILE=DIR` runs it with `--cpu-prof`, its profile written to DIR when it stops.
 */
export async function startServiceProcess(options: StartServiceOptions): Promise<ServiceProcess> {
  const logFile = options.logFile ?? join(options.data.dataDir, 'service.log');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const fd = openSync(logFile, 'a');
  const profile = process.env['BENCH_PROFILE'];
  // The start script's own flags come with ENTRY, after these.
  const nodeArgs = [
    ...(options.nodeArgs ?? []),
    ...(profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]),
  ];
  const [command, args] = pinned('measured', process.execPath, [...nodeArgs, ...ENTRY]);
  const child = spawn(command, args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      // The service's own per-token limit would cap what is measured.
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
      ...options.data.env,
      ...options.env,
      // glibc's allocator settings (MALLOC_MMAP_THRESHOLD_, MALLOC_ARENA_MAX…) reach the service, to compare them.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_'))),
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid ?? 0;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
    if (ready?.status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const out = logFile === '/dev/null' ? '' : readFileSync(logFile, 'utf8').slice(-4000);
      throw new Error(`the service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    child,
    pid,
    baseUrl,
    logFile,
    rssMiB: () => rssMiBOf(pid),
    samplePeakRss: (everyMs = 50) => samplePeakRss(pid, everyMs, () => child.exitCode === null),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A port free right now (the OS picks it; the service binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

/** A fresh data directory, a Salesforce connection to `sandbox` with an API token, and the service. */
export async function startServiceOnSandbox(
  sandbox: {
    url: string;
    credentials: { accessToken: string; refreshToken: string };
  },
  options: Omit<StartServiceOptions, 'data'> = {},
): Promise<{ data: ServiceData; token: string; service: ServiceProcess }> {
  const data = createServiceData();
  const { token } = await seedConnection(data, {
    provider: 'salesforce',
    url: sandbox.url,
    accessToken: sandbox.credentials.accessToken,
    refreshToken: sandbox.credentials.refreshToken,
  });
  return { data, token, service: await startServiceProcess({ ...options, data }) };
}

/** Removes the data directory (after `stop`). */
export function removeServiceData(data: ServiceData): void {
  rmSync(data.dataDir, { recursive: true, force: true });
}

export interface HelperProcess {
  /** The JSON object the process printed on its first line ({url, …}). */
  info: Record<string, unknown> & { url: string };
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a bench helper script (an upstream, a baseline forwarder, a sandbox) in its own process.
 * The script prints one JSON line with its `url` when ready and stops when stdin closes.
 */
export async function spawnHelperProcess(
  script: string,
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<HelperProcess> {
  const role = script.includes('forwarder') ? 'measured' : 'other';
  const [command, argv] = pinned(role, process.execPath, [...nodeArgs, script, ...args]);
  const child = spawn(command, argv, {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    info: JSON.parse(firstLine) as HelperProcess['info'],
    pid: child.pid ?? 0,
    async stop() {
      child.stdin?.end();
      await exited;
    },
  };
}
