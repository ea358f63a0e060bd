// The request log's write cost per row on SQLite, as the service writes it (batches of 500 through
// the store's repository), with the request ids the service makes (time first, then random) against
// wholly random ones: the index on request_id takes a random id on another page every time.
// Each kind gets a fresh store, filled with 200 000 rows first (the log of a busy hour), then timed
// over 100 000 more: CPU time of this process and wall time per row.
// Run: npm run bench -- request-log   (BENCH_RUNS, default 3)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshRequestId } from '../src/http/plugins/request-id.ts';
import { pooledRandomBytes } from '../src/lib/random-pool.ts';
import { openStore } from '../src/store/index.ts';
import type { RequestLogEntry } from '../src/store/types.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const BATCH = 500;
const FILL = 200_000;
const MEASURED = 100_000;

const kinds = {
  'time-ordered (the service)': () => freshRequestId(),
  'wholly random (before)': () => `req_${pooledRandomBytes(12).toString('base64url')}`,
};

let seq = 0;
function batch(requestId: () => string): RequestLogEntry[] {
  return Array.from({ length: BATCH }, () => {
    seq += 1;
    const now = Date.now();
    return {
      id: `rl_${now.toString(36).padStart(9, '0')}${seq.toString(36).padStart(6, '0')}`,
      at: new Date(now).toISOString(),
      method: 'GET',
      path: '/v1/proxy/services/data/v62.0/sobjects/Account/001000000000001AAA',
      status: 200,
      latencyMs: 3,
      crmCalls: 1,
      interface: null,
      requestId: requestId(),
      tokenId: 'tok_bench',
      connectionId: 'conn_bench',
      errorCode: null,
    };
  });
}

const figures = new Map<string, Array<{ cpuUs: number; wallUs: number }>>();
for (let run = 1; run <= RUNS; run += 1) {
  for (const [kind, requestId] of Object.entries(kinds)) {
    const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-request-log-'));
    const store = await openStore({ dataDir: dir });
    try {
      for (let n = 0; n < FILL; n += BATCH) await store.requestLog.insertMany(batch(requestId));
      // Built beforehand: only the writes are timed.
      const batches = Array.from({ length: MEASURED / BATCH }, () => batch(requestId));
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (const b of batches) await store.requestLog.insertMany(b);
      const wallUs = ((performance.now() - started) * 1000) / MEASURED;
      const used = process.cpuUsage(cpu);
      const cpuUs = (used.user + used.system) / MEASURED;
      figures.set(kind, [...(figures.get(kind) ?? []), { cpuUs, wallUs }]);
      console.log(
        `run ${run}: ${kind.padEnd(28)} ${cpuUs.toFixed(1)} µs CPU, ${wallUs.toFixed(1)} µs wall per row`,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `\nper row, median of ${RUNS} runs (${FILL} rows first, ${MEASURED} timed, batches of ${BATCH}):`,
);
for (const [kind, xs] of figures) {
  console.log(
    `  ${kind.padEnd(28)} ${median(xs.map((x) => x.cpuUs)).toFixed(1)} µs CPU, ${median(xs.map((x) => x.wallUs)).toFixed(1)} µs wall`,
  );
}
const [ordered, random] = [...figures.values()].map((xs) => median(xs.map((x) => x.cpuUs)));
if (ordered !== undefined && random !== undefined)
  console.log(`  random ids cost ×${(random / ordered).toFixed(2)} the CPU of time-ordered ones`);
