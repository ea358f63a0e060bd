// The compiled build (`npm run build`, plain node) against the TypeScript sources run through tsx:
// start-up time to a ready /readyz, resident memory at idle, and small-GET throughput.
// Run: npm run bench -- compiled   (BENCH_RUNS start-ups per mode, default 5; BENCH_SECONDS, default 5)
//
// Each service runs `serve` in sandbox mode in its own process (the in-process sandboxes are the
// same for both modes); this process is only the load generator (autocannon in a worker thread).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const MODES = {
  compiled: ['dist/src/cli/index.js', 'serve'],
  tsx: ['src/cli/index.ts', 'serve'],
} as const;
type Mode = keyof typeof MODES;

const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('build failed');

interface Started {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  startMs: number;
}

async function start(mode: Mode): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crm-proxy-bench-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [...MODES[mode]], {
    env: {
      PATH: process.env['PATH'],
      CRM_PROXY_DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      // The service's own per-token limit would cap the throughput measured.
      CRM_PROXY_RATE_LIMIT_PER_SECOND: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (url !== undefined) {
      const ready = await fetch(`${url}/readyz`).catch(() => undefined);
      if (ready?.status === 200) return { child, baseUrl: url, dataDir, startMs: performance.now() - t0 };
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${mode} did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function stop(s: Started): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
  rmSync(s.dataDir, { recursive: true, force: true });
}

/** Resident set size of a process, from /proc (Linux). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const rows: string[] = [];
for (const mode of Object.keys(MODES) as Mode[]) {
  const starts: number[] = [];
  const idle: number[] = [];
  let throughput: autocannon.Result | undefined;
  for (let i = 0; i < RUNS; i++) {
    const s = await start(mode);
    starts.push(s.startMs);
    // Idle: 2 s after ready, with nothing served yet.
    await new Promise((r) => setTimeout(r, 2000));
    idle.push(rssMiB(s.child.pid ?? 0));
    if (i === RUNS - 1) {
      const sandbox = JSON.parse(readFileSync(join(s.dataDir, 'sandbox.json'), 'utf8')) as {
        tokens: Record<string, string>;
      };
      const headers = {
        authorization: `Bearer ${sandbox.tokens['salesforce']}`,
        'content-type': 'application/json',
      };
      const inserted = (await (
        await fetch(`${s.baseUrl}/v1/object/insert/Account`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ data: [{ Name: 'Bench' }] }),
        })
      ).json()) as { data: { id: string }[] };
      const id = inserted.data[0]?.id;
      const call = {
        url: `${s.baseUrl}/v1/object/get/Account`,
        method: 'POST' as const,
        headers,
        body: JSON.stringify({ data: { ids: [id], fields: ['Name'] } }),
      };
      const warm = await fetch(call.url, call);
      if (warm.status !== 200) throw new Error(`warm-up: ${warm.status} ${await warm.text()}`);
      throughput = await autocannon({ ...call, connections: 10, duration: SECONDS, workers: 1, timeout: 30 });
      if (throughput.errors > 0 || throughput.non2xx > 0)
        throw new Error(`${mode}: ${throughput.errors} errors, ${throughput.non2xx} non-2xx`);
    }
    await stop(s);
  }
  rows.push(
    `${mode.padEnd(9)} ${median(starts).toFixed(0).padStart(8)} ${Math.min(...starts)
      .toFixed(0)
      .padStart(
        8,
      )} ${median(idle).toFixed(1).padStart(9)} ${(throughput?.requests.average ?? 0).toFixed(0).padStart(8)} ${(throughput?.latency.p50 ?? 0).toFixed(1).padStart(7)} ${(throughput?.latency.p99 ?? 0).toFixed(1).padStart(7)}`,
  );
}
console.log(
  `\ncompiled build vs tsx (${RUNS} start-ups each; throughput: get of 1 Account, 10 connections, ${SECONDS} s;\nthe sandbox CRMs run inside each service process, the load generator in this one)\n`,
);
console.log('mode      start ms   min ms  idle MiB    req/s  p50 ms  p99 ms');
console.log(rows.join('\n'));
