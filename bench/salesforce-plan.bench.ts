// The adaptive Salesforce write plan on 10 000 records: the service's own choice with plenty of the
// org's daily API allowance left and near its limit, beside each single plan forced by
// X-CRM-Proxy-Interface, in the same run. With plenty left the service's wall time should be within
// 1.1 of the fastest plan's; near the limit its API calls within 1.1 of the most frugal plan's.
// The service runs as its own process (as `npm start` runs it, default log level, logs to a file), the sandbox in
// another, with a latency profile of a real org (150 ms ± 30 ms per call, 0.5 ms per record).
// Run: npm run bench -- salesforce-plan   (BENCH_RUNS, default 3; BENCH_RECORDS, default 10000)
import { loadavg } from 'node:os';
import { sandboxControl, spawnSalesforceSandbox } from './lib/harness.ts';
import { removeServiceData, startServiceOnSandbox } from './lib/service-process.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const RECORDS = Number(process.env['BENCH_RECORDS'] ?? 10_000);
const REALISM = { latencyMs: 150, latencyJitterMs: 30, perRecordMs: 0.5 };
const DAILY = 100_000;
/** Usage of the two ends: nearly all of the allowance left, and 5 % left. */
const PLENTY = 1_000;
const NEAR = 95_000;

const sandbox = await spawnSalesforceSandbox(0);
const control = sandboxControl(sandbox.url);
const { data, token, service } = await startServiceOnSandbox(sandbox);

interface Row {
  scenario: string;
  header: string;
  wallMs: number;
  calls: number;
}

try {
  const call = async (path: string, body: unknown, via?: string) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(via === undefined ? {} : { 'x-crm-proxy-interface': via }),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
    const parsed = JSON.parse(text) as { data: unknown };
    const results = Array.isArray(parsed.data) ? (parsed.data as Array<{ success: boolean }>) : [];
    const failed = results.filter((r) => !r.success).length;
    if (failed > 0) throw new Error(`${path}: ${failed} records failed`);
    return response.headers.get('x-crm-proxy-interface') ?? '?';
  };
  /** Sets the org's usage and lets the service see it on one answer, as an org in use would. */
  const usage = async (used: number) => {
    await control('/limits', 'PUT', { api_requests_used: used, daily_api_requests: DAILY });
    await call('/v1/object/soql', { data: 'SELECT Id FROM Account LIMIT 1' });
  };
  await control('/realism', 'PATCH', { latencyMs: 0, latencyJitterMs: 0, perRecordMs: 0 });
  await usage(PLENTY);
  // Warm up both plans' code paths, token, describe cache and sockets.
  const warm = Array.from({ length: 2_000 }, (_, i) => ({ Name: `warm ${i}` }));
  await call('/v1/object/insert/Account', { data: warm }, 'collections');
  await call('/v1/object/insert/Account', { data: warm }, 'bulk2');
  await control('/realism', 'PATCH', REALISM);

  const measure = async (scenario: string, used: number, via?: string): Promise<Row> => {
    await usage(used);
    await control('/calls', 'DELETE');
    const records = Array.from({ length: RECORDS }, (_, i) => ({
      Name: `${scenario} ${i}`,
      Industry: 'Energy',
      NumberOfEmployees: i,
    }));
    const started = performance.now();
    const header = await call('/v1/object/insert/Account', { data: records }, via);
    const wallMs = performance.now() - started;
    const calls = Number((await control('/calls')).total);
    return { scenario, header, wallMs, calls };
  };

  const ratios: Array<{ plentyWall: number; nearCalls: number }> = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const rows = [
      await measure('collections (forced)', PLENTY, 'collections'),
      await measure('bulk2 (forced)', PLENTY, 'bulk2'),
      await measure('service, plenty left', PLENTY),
      await measure('service, 5 % left', NEAR),
    ];
    const [fast, frugal, plenty, near] = rows as [Row, Row, Row, Row];
    const fastest = Math.min(fast.wallMs, frugal.wallMs);
    const fewest = Math.min(fast.calls, frugal.calls);
    console.log(`\nrun ${run}: insert ${RECORDS} records, load average ${loadavg()[0]?.toFixed(2)}`);
    console.log(
      `${'scenario'.padEnd(24)} ${'X-CRM-Proxy-Interface'.padEnd(40)} ${'wall ms'.padStart(8)} ${'×fastest'.padStart(9)} ${'calls'.padStart(6)} ${'×fewest'.padStart(8)}`,
    );
    for (const r of rows) {
      console.log(
        `${r.scenario.padEnd(24)} ${r.header.padEnd(40)} ${r.wallMs.toFixed(0).padStart(8)} ${(r.wallMs / fastest).toFixed(2).padStart(9)} ${String(r.calls).padStart(6)} ${(r.calls / fewest).toFixed(2).padStart(8)}`,
      );
    }
    ratios.push({ plentyWall: plenty.wallMs / fastest, nearCalls: near.calls / fewest });
  }
  const spread = (xs: number[]) =>
    `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)} (median ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]?.toFixed(2)})`;
  console.log(`\nover ${RUNS} runs (target ≤ 1.10):`);
  console.log(
    `  plenty left: service wall time / fastest plan's  ${spread(ratios.map((r) => r.plentyWall))}`,
  );
  console.log(`  5 % left:    service API calls / fewest plan's   ${spread(ratios.map((r) => r.nearCalls))}`);
  console.log(
    `  service RSS now ${service.rssMiB().toFixed(0)} MiB; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await service.stop();
  removeServiceData(data);
  sandbox.stop();
}
