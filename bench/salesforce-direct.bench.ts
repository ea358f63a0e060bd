// The service beside the same Salesforce call sent straight to the sandbox with the same access
// token, in the same run: get of 2 000 ids against one sObject Collections retrieve, and insert of
// 200 records through Collections against one sObject Collections create. Target: the service's
// throughput at ≥ 0.95 of direct. The service runs as its own process (as `npm start` runs it, default log level,
// logs to a file), the sandbox in another, the load generator (wrk) in a third. Each runs twice:
// with the sandbox answering at once (the service's CPU against the sandbox's, on shared cores)
// and with Salesforce's latency. The CPU time per request of the sandbox and the service is printed.
// Run: npm run bench -- salesforce-direct   (BENCH_RUNS, default 3; BENCH_SECONDS per measurement, default 5;
//   BENCH_ONLY=get|insert; BENCH_SETTING=local|latency; BENCH_PROFILE=DIR profiles the service)
import { loadavg } from 'node:os';
import { sandboxControl, spawnSalesforceSandbox } from './lib/harness.ts';
import { type LoadCall, type LoadResult, runWrk } from './lib/load.ts';
import { cpuMsOf, removeServiceData, startServiceOnSandbox } from './lib/service-process.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const CONNECTIONS = 4;
const ONLY = process.env['BENCH_ONLY'];
const ONLY_SETTING = process.env['BENCH_SETTING'];
const FIELDS = ['Name', 'Industry'];
const API = '/services/data/v62.0';

const sandbox = await spawnSalesforceSandbox(2_000);
const { data, token, service } = await startServiceOnSandbox(sandbox);

const json = (url: string, auth: string, body: unknown): LoadCall => ({
  url,
  method: 'POST',
  headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const names = Array.from({ length: 200 }, (_, i) => `Direct bench ${i}`);
const allScenarios: Array<{ name: string; direct: LoadCall; service: LoadCall }> = [
  {
    name: 'get 2000 ids',
    direct: json(`${sandbox.url}${API}/composite/sobjects/Account`, sandbox.credentials.accessToken, {
      ids: sandbox.ids,
      fields: ['Id', ...FIELDS],
    }),
    service: json(`${service.baseUrl}/v1/object/get/Account`, token, {
      data: { ids: sandbox.ids, fields: FIELDS },
    }),
  },
  {
    name: 'insert 200',
    direct: json(`${sandbox.url}${API}/composite/sobjects`, sandbox.credentials.accessToken, {
      allOrNone: false,
      records: names.map((Name) => ({ attributes: { type: 'Account' }, Name })),
    }),
    service: json(`${service.baseUrl}/v1/object/insert/Account`, token, {
      data: names.map((Name) => ({ Name })),
    }),
  },
];

const control = sandboxControl(sandbox.url);

// Two settings of the sandbox. `local`: it answers at once, on the same two cores as the service
// and the load generator, so the ratio is the service's own CPU cost against the sandbox's (the
// strictest reading). `latency`: Salesforce's own time per call (150 ms ± 30, plus 0.5 ms a
// record), what a client of the real CRM waits for either way.
// Requests of a few hundred ms need a longer window than those of a few ms.
const SETTINGS = [
  {
    name: 'local',
    connections: CONNECTIONS,
    seconds: SECONDS,
    realism: { latencyMs: 0, latencyJitterMs: 0, perRecordMs: 0 },
  },
  {
    name: 'latency',
    connections: 16,
    seconds: Math.max(SECONDS, 10),
    realism: { latencyMs: 150, latencyJitterMs: 30, perRecordMs: 0.5 },
  },
].filter((s) => ONLY_SETTING === undefined || s.name === ONLY_SETTING);

const scenarios = allScenarios.filter((s) => ONLY === undefined || s.name.startsWith(ONLY));

try {
  // Warm up: token, describe cache, sockets, JIT.
  for (const s of scenarios) {
    for (const c of [s.direct, s.service]) {
      const r = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body as string });
      if (r.status !== 200) throw new Error(`${c.url}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    }
    await runWrk(s.service, CONNECTIONS, 2);
  }
  const ratios = new Map<string, number[]>();
  const check = (what: string, r: LoadResult) => {
    if (r.errors > 0 || r.unexpectedStatus > 0)
      throw new Error(`${what}: ${r.errors} errors, ${r.unexpectedStatus} unexpected statuses`);
    return r;
  };
  // CPU time per request of the sandbox and of the service (from /proc): where the time goes.
  const measured = async (call: LoadCall, connections: number, seconds: number) => {
    const before = { sandbox: cpuMsOf(sandbox.pid), service: cpuMsOf(service.pid) };
    const result = await runWrk(call, connections, seconds);
    const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.requests);
    return {
      result,
      sandboxUs: perRequest(cpuMsOf(sandbox.pid) - before.sandbox),
      serviceUs: perRequest(cpuMsOf(service.pid) - before.service),
    };
  };
  const col = (v: string | number, w: number) => String(v).padStart(w);
  for (const setting of SETTINGS) {
    await control('/realism', 'PATCH', setting.realism);
    // Both paths once more at this setting, so that neither pays the change.
    for (const s of scenarios) {
      await runWrk(s.direct, setting.connections, 2);
      await runWrk(s.service, setting.connections, 2);
    }
    for (let run = 1; run <= RUNS; run += 1) {
      console.log(
        `\n${setting.name}, run ${run}: wrk -t1 -c${setting.connections} -d${setting.seconds}s, load average ${loadavg()[0]?.toFixed(2)}`,
      );
      console.log(
        `${'scenario'.padEnd(14)} ${'target'.padEnd(8)} ${col('req/s', 8)} ${col('p50 ms', 8)} ${col('p99 ms', 8)} ${col('sandbox CPU µs/req', 19)} ${col('service CPU µs/req', 19)} ${col('RSS peak MiB', 13)}`,
      );
      for (const s of scenarios) {
        // Each measurement on the org as seeded: the inserts of the last one would make it larger.
        await sandbox.prune();
        const direct = await measured(s.direct, setting.connections, setting.seconds);
        check(`${s.name} direct`, direct.result);
        await sandbox.prune();
        const peak = service.samplePeakRss();
        const proxied = await measured(s.service, setting.connections, setting.seconds);
        check(`${s.name} service`, proxied.result);
        const rss = peak();
        for (const [target, m, mem] of [
          ['direct', direct, ''],
          ['service', proxied, rss.toFixed(0)],
        ] as const) {
          const r = m.result;
          console.log(
            `${s.name.padEnd(14)} ${target.padEnd(8)} ${col(r.requestsPerSecond.toFixed(1), 8)} ${col(r.p50Ms.toFixed(1), 8)} ${col(r.p99Ms.toFixed(1), 8)} ${col(m.sandboxUs.toFixed(0), 19)} ${col(target === 'direct' ? '-' : m.serviceUs.toFixed(0), 19)} ${col(mem, 13)}`,
          );
        }
        const ratio = proxied.result.requestsPerSecond / direct.result.requestsPerSecond;
        console.log(
          `${s.name.padEnd(14)} service/direct: req/s ×${ratio.toFixed(2)}, p50 ×${(proxied.result.p50Ms / direct.result.p50Ms).toFixed(2)}, p99 ×${(proxied.result.p99Ms / direct.result.p99Ms).toFixed(2)}`,
        );
        const key = `${s.name} (${setting.name})`;
        ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
      }
    }
  }
  console.log(`\nthroughput service/direct over ${RUNS} runs (target ≥ 0.95):`);
  for (const [name, xs] of ratios) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(24)} ${sorted[0]?.toFixed(2)}–${sorted.at(-1)?.toFixed(2)} (median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)})`,
    );
  }
  console.log(
    `  load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await service.stop();
  removeServiceData(data);
  sandbox.stop();
}
