// What a connection's job turns (CRM_PROXY_JOB_RECORDS_IN_FLIGHT) cost in wall time: concurrent
// 10 000-record inserts through one connection, each interface forced with X-CRM-Proxy-Interface,
// with the default turns (20 000 records in flight) and with turns lifted (every job at once),
// against a sandbox with a real org's latency (150 ms ± 30 per call, 0.5 ms a record). Prints the
// wall time, the service's peak RSS and the ratio. Collections jobs share the connection's 16
// parallel calls anyway; a Bulk API 2.0 job keeps its turn while Salesforce processes it.
// Run: npm run bench -- job-turns   (BENCH_RUNS, default 1; BENCH_JOBS, default 10)
import { loadavg } from 'node:os';
import { sandboxControl, spawnSalesforceSandbox } from './lib/harness.ts';
import { removeServiceData, startServiceOnSandbox } from './lib/service-process.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 1);
const JOBS = Number(process.env['BENCH_JOBS'] ?? 10);
const RECORDS = 10_000;
const REALISM = { latencyMs: 150, latencyJitterMs: 30, perRecordMs: 0.5 };
const SETTINGS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'turns (default)', env: {} },
  { name: 'turns lifted', env: { CRM_PROXY_JOB_RECORDS_IN_FLIGHT: '10000000' } },
];

const rows: Array<{ via: string; setting: string; wallMs: number; peakMiB: number }> = [];
for (let run = 1; run <= RUNS; run += 1) {
  for (const via of ['collections', 'bulk2']) {
    for (const setting of SETTINGS) {
      const sandbox = await spawnSalesforceSandbox(0);
      await sandboxControl(sandbox.url)('/realism', 'PATCH', REALISM);
      const { data, token, service } = await startServiceOnSandbox(sandbox, { env: setting.env });
      try {
        const insert = async (k: number) => {
          const response = await fetch(`${service.baseUrl}/v1/object/insert/Account`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'x-crm-proxy-interface': via,
            },
            body: JSON.stringify({
              data: Array.from({ length: RECORDS }, (_, i) => ({ Name: `Turns ${run}-${k}-${i}` })),
            }),
          });
          const text = await response.text();
          if (response.status !== 200) throw new Error(`insert: ${response.status} ${text.slice(0, 300)}`);
          const failed = (JSON.parse(text) as { data: Array<{ success: boolean }> }).data.filter(
            (r) => !r.success,
          ).length;
          if (failed > 0) throw new Error(`insert: ${failed} records failed`);
        };
        const peak = service.samplePeakRss(20);
        const started = performance.now();
        await Promise.all(Array.from({ length: JOBS }, (_, k) => insert(k)));
        const wallMs = performance.now() - started;
        const peakMiB = peak();
        rows.push({ via, setting: setting.name, wallMs, peakMiB });
        console.log(
          `run ${run}: ${JOBS} × ${RECORDS} via ${via.padEnd(11)} ${setting.name.padEnd(16)} ${(wallMs / 1000).toFixed(1).padStart(6)} s, peak RSS ${peakMiB.toFixed(0)} MiB, load average ${loadavg()[0]?.toFixed(2)}`,
        );
      } finally {
        await service.stop();
        removeServiceData(data);
        sandbox.stop();
      }
    }
  }
}
console.log(`\nwall time with turns against turns lifted (${JOBS} concurrent ${RECORDS}-record inserts):`);
for (const via of ['collections', 'bulk2']) {
  const mine = rows.filter((r) => r.via === via);
  const withTurns = mine.filter((r) => r.setting === SETTINGS[0]?.name).map((r) => r.wallMs);
  const lifted = mine.filter((r) => r.setting === SETTINGS[1]?.name).map((r) => r.wallMs);
  const ratios = withTurns.map((w, i) => w / (lifted[i] ?? w));
  console.log(`  ${via.padEnd(11)} ×${ratios.map((r) => r.toFixed(2)).join(', ×')}`);
}
