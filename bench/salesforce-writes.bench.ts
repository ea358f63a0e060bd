// Insert and update of 10 000 records through the service, by sObject Collections only, Bulk API
// 2.0 only and the service's own choice, against the Salesforce sandbox with a realistic latency
// profile. Prints wall time, Salesforce API calls (sandbox accounting) and the service's peak
// memory, with ratios against the best of the three; then a size sweep for the threshold.
// Run: npm run bench -- salesforce-writes   (BENCH_RECORDS, default 10000; BENCH_SWEEP=0 skips the sweep;
//   BENCH_VIA=bulk2 (or collections, auto) runs only that interface)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sandboxControl, spawnSalesforceSandbox, startBenchService } from './lib/harness.ts';
import { longestTurnCpu } from './lib/loop-cpu.ts';

const RECORDS = Number(process.env['BENCH_RECORDS'] ?? 10_000);
const SWEEP = process.env['BENCH_SWEEP'] !== '0';
const VIA = process.env['BENCH_VIA'];
/** Per call and per record, as a Salesforce org answers from across the internet. */
const REALISM = { latencyMs: 150, latencyJitterMs: 30, perRecordMs: 0.5 };

// The sandbox runs in its own process: the memory measured here is the service's alone.
const sandbox = await spawnSalesforceSandbox(0);
const control = sandboxControl(sandbox.url);

const bench = await startBenchService({ salesforce: sandbox.credentials });
const { service } = bench;

interface Row {
  name: string;
  wallMs: number;
  calls: number;
  peakMiB: number;
  loopMaxMs: number;
  loopP99Ms: number;
  turnCpuMs: number;
  via: string;
}

try {
  const { token } = await bench.connect('salesforce', sandbox);
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
    const parsed = JSON.parse(text) as { data: Array<{ id?: string; success: boolean }> };
    const failed = parsed.data.filter((r) => !r.success).length;
    if (failed > 0) throw new Error(`${path}: ${failed} records failed`);
    return { data: parsed.data, via: response.headers.get('x-crm-proxy-interface') ?? '?' };
  };
  // Warm up: token, describe cache, sockets.
  await call('/v1/object/insert/Account', { data: [{ Name: 'warm' }] });
  await control('/realism', 'PATCH', REALISM);

  async function measure<T>(fn: () => Promise<T>): Promise<Omit<Row, 'name' | 'via'> & { value: T }> {
    globalThis.gc?.();
    await control('/calls', 'DELETE');
    // Heap (JS objects + buffers) above the level before the scenario, sampled every 10 ms:
    // what the scenario itself holds at its peak. RSS rarely shrinks, so it would hide that.
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const base = used();
    let peak = base;
    const timer = setInterval(() => {
      peak = Math.max(peak, used());
    }, 10);
    // The longest the service's event loop was held (the service runs in this process).
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const turns = longestTurnCpu();
    const started = performance.now();
    const value = await fn();
    const wallMs = performance.now() - started;
    loop.disable();
    const turnCpuMs = turns.stop();
    clearInterval(timer);
    peak = Math.max(peak, used());
    const snapshot = (await control('/calls')) as { total: number };
    const loopMaxMs = loop.max / 1e6;
    const loopP99Ms = loop.percentile(99) / 1e6;
    return {
      value,
      wallMs,
      calls: snapshot.total,
      peakMiB: (peak - base) / 2 ** 20,
      loopMaxMs,
      loopP99Ms,
      turnCpuMs,
    };
  }

  const rows: Row[] = [];
  for (const [label, via] of [
    ['collections', 'collections'],
    ['bulk2', 'bulk2'],
    ['service choice', undefined],
  ] as const) {
    if (VIA !== undefined && VIA !== (via ?? 'auto')) continue;
    const records = Array.from({ length: RECORDS }, (_, i) => ({
      Name: `${label} ${i}`,
      Industry: 'Energy',
      NumberOfEmployees: i,
    }));
    const ins = await measure(() => call('/v1/object/insert/Account', { data: records }, via));
    rows.push({ name: `insert ${RECORDS} / ${label}`, ...ins, via: ins.value.via });
    const updates = ins.value.data.map((r, i) => ({
      id: r.id,
      Industry: 'Banking',
      NumberOfEmployees: i + 1,
    }));
    const upd = await measure(() => call('/v1/object/update/Account', { data: updates }, via));
    rows.push({ name: `update ${RECORDS} / ${label}`, ...upd, via: upd.value.via });
  }
  print(rows.filter((r) => r.name.startsWith('insert')));
  print(rows.filter((r) => r.name.startsWith('update')));

  if (SWEEP) {
    console.log('\nThreshold sweep (insert): wall time and API calls by size');
    console.log('records  collections ms  calls   bulk2 ms  calls');
    for (const n of [500, 1000, 2000, 4000]) {
      const records = (p: string) => Array.from({ length: n }, (_, i) => ({ Name: `${p} ${n} ${i}` }));
      const c = await measure(() =>
        call('/v1/object/insert/Account', { data: records('sc') }, 'collections'),
      );
      const b = await measure(() => call('/v1/object/insert/Account', { data: records('sb') }, 'bulk2'));
      console.log(
        `${String(n).padStart(7)}  ${c.wallMs.toFixed(0).padStart(14)}  ${String(c.calls).padStart(5)}  ${b.wallMs.toFixed(0).padStart(9)}  ${String(b.calls).padStart(5)}`,
      );
    }
  }
} finally {
  await bench.close();
  sandbox.stop();
}

function print(rows: Row[]): void {
  const best = {
    wallMs: Math.min(...rows.map((r) => r.wallMs)),
    calls: Math.min(...rows.map((r) => r.calls)),
    peakMiB: Math.min(...rows.map((r) => Math.max(r.peakMiB, 1))),
  };
  console.log(
    `\n${'scenario'.padEnd(32)} ${'via'.padEnd(12)} ${'wall ms'.padStart(9)} ${'×best'.padStart(6)} ${'calls'.padStart(6)} ${'×best'.padStart(6)} ${'heap MiB'.padStart(9)} ${'×best'.padStart(6)} ${'loop max ms'.padStart(12)} ${'p99'.padStart(5)} ${'turn CPU ms'.padStart(12)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(32)} ${r.via.padEnd(12)} ${r.wallMs.toFixed(0).padStart(9)} ${(r.wallMs / best.wallMs).toFixed(2).padStart(6)} ${String(r.calls).padStart(6)} ${(r.calls / best.calls).toFixed(2).padStart(6)} ${r.peakMiB.toFixed(1).padStart(9)} ${(Math.max(r.peakMiB, 1) / best.peakMiB).toFixed(2).padStart(6)} ${r.loopMaxMs.toFixed(0).padStart(12)} ${r.loopP99Ms.toFixed(0).padStart(5)} ${r.turnCpuMs.toFixed(0).padStart(12)}`,
    );
  }
}
