// Pass-through (/v1/proxy/...) as users get it, against its baselines in the same run:
//   direct     — the load generator straight to the upstream;
//   forwarder  — a lean Node forwarder doing the pass-through's essential work and nothing else
//                (bench/lib/lean-forwarder.ts: node:http + undici Pool, headers filtered both ways, a
//                credential injected, bodies streamed, the answer written chunk by chunk);
//   fastify    — the same work inside Fastify (bench/lib/fastify-forwarder.ts: one wildcard route,
//                no logger, auth or request log): what the framework itself adds to the forwarder;
//   service    — crm-proxy's pass-through, started as `npm start` starts it, at the default log
//                level, its stdout and stderr going to a file.
// Every party is its own process: the upstream (a trivial 1 KB CRM, bench/lib/upstream-process.ts),
// the forwarder, the service, and the load generator (wrk for a fixed number of connections,
// bench/lib/rate-load-process.ts for a fixed rate). Runs are interleaved so that drift in the
// machine's load falls on all of them alike.
//
// Run: npm run bench -- proxy
//   BENCH_RUNS (default 3), BENCH_SECONDS per run (default 5),
//   BENCH_LOG_LEVEL (default: the service's own default), BENCH_SERVICE_LOG (default: a file;
//   /dev/null discards), BENCH_PROFILE=DIR (the service runs with --cpu-prof, profile written to DIR),
//   BENCH_ONLY=get|rate|post (one scenario), BENCH_QUICK=1 (one run of 1 s each and a short warm-up:
//   checks the bench end to end, its figures mean nothing), CRM_PROXY_REPLAY_SKIP_WINDOW_MS (passed to
//   the service: 0 measures the POST with its replay copy, which the default window skips).
import { statSync } from 'node:fs';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import { type LoadCall, type LoadResult, runAtRate, runWrk } from './lib/load.ts';
import {
  cpuMsOf,
  createServiceData,
  mainThreadCpuMsOf,
  removeServiceData,
  type ServiceProcess,
  samplePeakRss,
  seedConnection,
  spawnHelperProcess,
  startServiceProcess,
} from './lib/service-process.ts';

const QUICK = process.env['BENCH_QUICK'] === '1';
const RUNS = Number(process.env['BENCH_RUNS'] ?? (QUICK ? 1 : 3));
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? (QUICK ? 1 : 5));
const ONLY = process.env['BENCH_ONLY'];
const WINDOW = process.env['CRM_PROXY_REPLAY_SKIP_WINDOW_MS'];
const MB = 1024 * 1024;

type Target = 'direct' | 'forwarder' | 'fastify' | 'service';
const TARGETS: Target[] = ['direct', 'forwarder', 'fastify', 'service'];

interface Scenario {
  key: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
  load: (call: LoadCall) => Promise<LoadResult>;
}

const PATH = '/services/data/v62.0/sobjects/Account';
const allScenarios: Scenario[] = [
  {
    key: 'get',
    label: 'small GET (1 KB answer), wrk 32 connections',
    method: 'GET',
    path: `${PATH}/001000000000001AAA`,
    load: (call) => runWrk(call, 32, SECONDS),
  },
  {
    key: 'rate',
    label: 'small GET at a fixed 1 000 req/s (16 connections)',
    method: 'GET',
    path: `${PATH}/001000000000001AAA`,
    load: (call) => runAtRate(call, 1000, 16, SECONDS),
  },
  {
    key: 'post',
    label: '1 MB POST, wrk 32 connections',
    method: 'POST',
    path: PATH,
    body: Buffer.from(JSON.stringify({ Name: 'Bench', Description: 'x'.repeat(MB - 40) })),
    load: (call) => runWrk(call, 32, SECONDS),
  },
];
const scenarios = allScenarios.filter((s) => ONLY === undefined || s.key === ONLY);

const load0 = loadavg();
const upstream = await spawnHelperProcess('bench/lib/upstream-process.ts');
const forwarder = await spawnHelperProcess('bench/lib/lean-forwarder.ts', [upstream.info.url]);
const fastify = await spawnHelperProcess('bench/lib/fastify-forwarder.ts', [upstream.info.url]);
const data = createServiceData();
let service: ServiceProcess | undefined;
try {
  const seeded = await seedConnection(data, {
    provider: 'salesforce',
    url: upstream.info.url,
    accessToken: 'upstream-access-token',
  });
  service = await startServiceProcess({
    data,
    env: {
      ...(process.env['BENCH_LOG_LEVEL'] === undefined ? {} : { LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] }),
      // 0 makes the service copy every POST body for a replay (by default it copies none here: the
      // warm-up call has the CRM accept the token, and the runs stay inside the skip window).
      ...(WINDOW === undefined ? {} : { CRM_PROXY_REPLAY_SKIP_WINDOW_MS: WINDOW }),
    },
    ...(process.env['BENCH_SERVICE_LOG'] === undefined ? {} : { logFile: process.env['BENCH_SERVICE_LOG'] }),
  });
  const running = service;
  const idleRss = running.rssMiB();

  const callFor = (s: Scenario, target: Target): LoadCall => {
    const base =
      target === 'direct'
        ? `${upstream.info.url}${s.path}`
        : `${target === 'forwarder' ? forwarder.info.url : target === 'fastify' ? fastify.info.url : running.baseUrl}/v1/proxy${s.path}`;
    const token = target === 'service' ? seeded.token : 'upstream-access-token';
    return {
      url: base,
      method: s.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(s.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(s.body === undefined ? {} : { body: s.body }),
    };
  };
  // Asked on a connection of its own (no agent), which the count includes: hence the `- 1` below.
  const upstreamConnections = () =>
    new Promise<number>((resolve, reject) => {
      get(`${upstream.info.url}/bench/connections-opened`, { agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => resolve(Number(text)));
      }).on('error', reject);
    });
  const pidOf = (target: Target): number | undefined =>
    target === 'service'
      ? running.pid
      : target === 'forwarder'
        ? forwarder.pid
        : target === 'fastify'
          ? fastify.pid
          : undefined;

  const out: string[] = [];
  for (const s of scenarios) {
    // Warm-up: each path once, checked, then a short burst (JIT, pools, caches).
    for (const target of TARGETS) {
      const call = callFor(s, target);
      const res = await fetch(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body ?? null,
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${target} ${s.key}: ${res.status} ${text.slice(0, 300)}`);
      if (!QUICK) await runWrk(call, 8, 1);
    }
    const results: Record<Target, LoadResult[]> = { direct: [], forwarder: [], fastify: [], service: [] };
    const peaks: Record<Target, number[]> = { direct: [], forwarder: [], fastify: [], service: [] };
    // CPU time the process spent per request: what the machine pays, whatever else runs on it.
    const cpu: Record<Target, number[]> = { direct: [], forwarder: [], fastify: [], service: [] };
    // The part of it spent off the main thread: V8's GC helpers (concurrent marking and sweeping), the thread pool.
    const others: Record<Target, number[]> = { direct: [], forwarder: [], fastify: [], service: [] };
    // Connections the upstream accepted during the runs: keep-alive reuse at work, or not.
    const opened: Record<Target, number> = { direct: 0, forwarder: 0, fastify: 0, service: 0 };
    for (let run = 0; run < RUNS; run++) {
      for (const target of TARGETS) {
        const pid = pidOf(target);
        const peak = pid === undefined ? () => 0 : samplePeakRss(pid);
        const cpu0 = pid === undefined ? 0 : cpuMsOf(pid);
        const main0 = pid === undefined ? 0 : mainThreadCpuMsOf(pid);
        const conns0 = await upstreamConnections();
        let peakMiB = 0;
        const r = await s.load(callFor(s, target)).finally(() => {
          peakMiB = peak();
        });
        if (pid !== undefined) {
          const all = cpuMsOf(pid) - cpu0;
          cpu[target].push((all * 1000) / r.requests);
          others[target].push(((all - (mainThreadCpuMsOf(pid) - main0)) * 1000) / r.requests);
        }
        opened[target] += (await upstreamConnections()) - conns0 - 1;
        if (r.errors > 0 || r.unexpectedStatus > 0)
          throw new Error(
            `${target} ${s.key}: ${r.errors} errors, ${r.unexpectedStatus} unexpected statuses`,
          );
        results[target].push(r);
        peaks[target].push(peakMiB);
      }
    }
    out.push('', `${s.label} — ${RUNS} runs of ${SECONDS} s, median [min–max]`);
    out.push(
      `${'target'.padEnd(10)} ${'req/s'.padEnd(21)} ${'p50 ms'.padEnd(21)} ${'p99 ms'.padEnd(21)} ${'CPU µs/request'.padEnd(21)} peak RSS MiB`,
    );
    for (const target of TARGETS) {
      const rs = results[target];
      const cols = [
        spread(
          rs.map((r) => r.requestsPerSecond),
          0,
        ),
        spread(
          rs.map((r) => r.p50Ms),
          2,
        ),
        spread(
          rs.map((r) => r.p99Ms),
          2,
        ),
        target === 'direct' ? '-' : spread(cpu[target], 0),
      ];
      out.push(
        `${target.padEnd(10)} ${cols.map((c) => c.padEnd(21)).join(' ')} ${target === 'direct' ? '-' : spread(peaks[target], 0)}`,
      );
    }
    // Ratios per run (same run, same machine state), then their median and spread.
    const per = (f: (i: number) => number) => Array.from({ length: RUNS }, (_, i) => f(i));
    const thr = (t: Target, i: number) => results[t][i]?.requestsPerSecond ?? Number.NaN;
    const p50 = (t: Target, i: number) => results[t][i]?.p50Ms ?? Number.NaN;
    out.push(
      `service/forwarder throughput ×${spread(
        per((i) => thr('service', i) / thr('forwarder', i)),
        2,
      )}` +
        `   service/direct ×${spread(
          per((i) => thr('service', i) / thr('direct', i)),
          2,
        )}` +
        `   forwarder/direct ×${spread(
          per((i) => thr('forwarder', i) / thr('direct', i)),
          2,
        )}`,
    );
    const cpuRatio = (t: Target, base: Target, i: number) =>
      (cpu[t][i] ?? Number.NaN) / (cpu[base][i] ?? Number.NaN);
    out.push(
      `fastify/forwarder throughput ×${spread(
        per((i) => thr('fastify', i) / thr('forwarder', i)),
        2,
      )}   service/fastify ×${spread(
        per((i) => thr('service', i) / thr('fastify', i)),
        2,
      )}`,
    );
    out.push(
      `CPU per request service/forwarder ×${spread(
        per((i) => cpuRatio('service', 'forwarder', i)),
        2,
      )}   fastify/forwarder ×${spread(
        per((i) => cpuRatio('fastify', 'forwarder', i)),
        2,
      )}   service/fastify ×${spread(
        per((i) => cpuRatio('service', 'fastify', i)),
        2,
      )}`,
    );
    out.push(
      `CPU per request off the main thread (GC helpers, thread pool): ${(
        ['forwarder', 'fastify', 'service'] as const
      )
        .map((t) => `${t} ${spread(others[t], 0)} µs`)
        .join(', ')}`,
    );
    out.push(
      `upstream connections opened during the runs: ${TARGETS.map((t) => `${t} ${opened[t]}`).join(', ')}`,
    );
    const late = TARGETS.map((t) => results[t].reduce((n, r) => n + (r.late ?? 0), 0));
    if (late.some((n) => n > 0))
      out.push(`requests sent >5 ms behind schedule (generator short of CPU): ${late.join(' / ')}`);
    out.push(
      `added p50 over direct: service ${spread(
        per((i) => p50('service', i) - p50('direct', i)),
        2,
      )} ms, forwarder ${spread(
        per((i) => p50('forwarder', i) - p50('direct', i)),
        2,
      )} ms, fastify ${spread(
        per((i) => p50('fastify', i) - p50('direct', i)),
        2,
      )} ms`,
    );
  }
  const load1 = loadavg();
  console.log(
    `\npass-through vs a lean Node forwarder, the same in Fastify, and direct (every party its own process; service: npm start, node ${process.version}, ` +
      `log level ${process.env['BENCH_LOG_LEVEL'] ?? 'default (info)'}, output to ${running.logFile})`,
  );
  console.log(out.join('\n'));
  await running.stop();
  const logBytes = running.logFile === '/dev/null' ? 0 : statSync(running.logFile).size;
  console.log(
    `\nservice RSS: idle ${idleRss.toFixed(0)} MiB; service log written: ${(logBytes / MB).toFixed(1)} MiB` +
      `\nload average (1/5/15 min): before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${load1.map((x) => x.toFixed(2)).join(' ')}`,
  );
} finally {
  await service?.stop();
  await Promise.all([forwarder.stop(), fastify.stop(), upstream.stop()] satisfies Promise<void>[]);
  removeServiceData(data);
}

function spread(xs: number[], digits: number): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  const f = (x: number) => x.toFixed(digits);
  return sorted.length === 1
    ? f(median)
    : `${f(median)} [${f(sorted[0] ?? Number.NaN)}–${f(sorted.at(-1) ?? Number.NaN)}]`;
}
