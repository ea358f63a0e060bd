// The service beside the same Salesforce call sent straight to the sandbox with the same access
// token, in the same run: get of 2 000 ids against one sObject Collections retrieve, and insert of
// 200 records through Collections against one sObject Collections create. Target: the service's
// throughput at ≥ 0.95 of direct. The service runs as its own process (compiled, default log level,
// logs to a file), the sandbox in another, the load generator (wrk) in a third.
// Run: npm run bench -- salesforce-direct   (BENCH_RUNS, default 3; BENCH_SECONDS per measurement, default 5)
import { loadavg } from 'node:os';
import { spawnSalesforceSandbox } from './lib/harness.ts';
import { type LoadCall, type LoadResult, runWrk } from './lib/load.ts';
import { removeServiceData, startServiceOnSandbox } from './lib/service-process.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const CONNECTIONS = 4;
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
const scenarios: Array<{ name: string; direct: LoadCall; service: LoadCall }> = [
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
  for (let run = 1; run <= RUNS; run += 1) {
    console.log(
      `\nrun ${run}: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, load average ${loadavg()[0]?.toFixed(2)}`,
    );
    console.log(
      `${'scenario'.padEnd(14)} ${'target'.padEnd(8)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'RSS peak MiB'.padStart(13)}`,
    );
    for (const s of scenarios) {
      const direct = check(`${s.name} direct`, await runWrk(s.direct, CONNECTIONS, SECONDS));
      const peak = service.samplePeakRss();
      const proxied = check(`${s.name} service`, await runWrk(s.service, CONNECTIONS, SECONDS));
      const rss = peak();
      for (const [target, r, mem] of [
        ['direct', direct, ''],
        ['service', proxied, rss.toFixed(0)],
      ] as const) {
        console.log(
          `${s.name.padEnd(14)} ${target.padEnd(8)} ${r.requestsPerSecond.toFixed(1).padStart(8)} ${r.p50Ms.toFixed(1).padStart(8)} ${r.p99Ms.toFixed(1).padStart(8)} ${mem.padStart(13)}`,
        );
      }
      const ratio = proxied.requestsPerSecond / direct.requestsPerSecond;
      console.log(
        `${s.name.padEnd(14)} service/direct: req/s ×${ratio.toFixed(2)}, p50 ×${(proxied.p50Ms / direct.p50Ms).toFixed(2)}, p99 ×${(proxied.p99Ms / direct.p99Ms).toFixed(2)}`,
      );
      ratios.set(s.name, [...(ratios.get(s.name) ?? []), ratio]);
    }
  }
  console.log(`\nthroughput service/direct over ${RUNS} runs (target ≥ 0.95):`);
  for (const [name, xs] of ratios) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(14)} ${sorted[0]?.toFixed(2)}–${sorted.at(-1)?.toFixed(2)} (median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)})`,
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
