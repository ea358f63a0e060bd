// The service's resident memory (RSS, from /proc) at its peak under two loads, each on a fresh
// service process (as `npm start` runs it, default log level, logs to a file):
//   - 50 concurrent inserts of 10 000 Salesforce records each (500 000 records in flight), against
//     the Salesforce sandbox in its own process; target under 300 MiB;
//   - 100 concurrent pass-through uploads of 10 MB each to a trivial upstream that reads and drops
//     them; target under 200 MiB (the bodies stream; only the bounded 401-replay copy is kept).
// Run: npm run bench -- memory   (BENCH_RUNS, default 3; BENCH_ONLY=inserts|uploads runs one scenario;
// BENCH_NODE_ARGS adds Node options to the service process, e.g. '--trace-gc'; BENCH_SERVICE_LOG names
// a file the service's stdout and stderr go to, kept after the run; MALLOC_* variables reach the service)
import { loadavg } from 'node:os';
import { spawnSalesforceSandbox } from './lib/harness.ts';
import {
  createServiceData,
  removeServiceData,
  rssMiBOf,
  START_FLAGS,
  samplePeakRss,
  seedConnection,
  spawnHelperProcess,
  startServiceOnSandbox,
  startServiceProcess,
} from './lib/service-process.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const ONLY = process.env['BENCH_ONLY'];
if (ONLY !== undefined && ONLY !== 'inserts' && ONLY !== 'uploads') {
  throw new Error(`BENCH_ONLY takes inserts or uploads, not ${ONLY}`);
}
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
const SERVICE_LOG = process.env['BENCH_SERVICE_LOG'];
const serviceOptions = {
  nodeArgs: NODE_ARGS,
  ...(SERVICE_LOG === undefined ? {} : { logFile: SERVICE_LOG }),
};
const INSERTS = 50;
const RECORDS = 10_000;
const UPLOADS = 100;
const UPLOAD_BYTES = 10 * 1024 * 1024;

interface Figure {
  idleMiB: number;
  peakMiB: number;
  wallMs: number;
}

async function insertScenario(run: number): Promise<Figure> {
  const sandbox = await spawnSalesforceSandbox(0);
  const { data, token, service } = await startServiceOnSandbox(sandbox, serviceOptions);
  try {
    const send = async (records: unknown[]) => {
      const response = await fetch(`${service.baseUrl}/v1/object/insert/Account`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: records }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`insert: ${response.status} ${text.slice(0, 300)}`);
    };
    await send([{ Name: 'warm' }]);
    // Bodies built before measuring: ~1 MB of JSON each, like a client's export.
    const bodies = Array.from({ length: INSERTS }, (_, r) =>
      Array.from({ length: RECORDS }, (_, i) => ({
        Name: `Memory ${run}-${r}-${i}`,
        Industry: 'Energy',
        NumberOfEmployees: i,
        Description: 'd'.repeat(40),
      })),
    );
    const idleMiB = service.rssMiB();
    const peak = service.samplePeakRss(20);
    const started = performance.now();
    await Promise.all(bodies.map(send));
    const wallMs = performance.now() - started;
    return { idleMiB, peakMiB: peak(), wallMs };
  } finally {
    await service.stop();
    removeServiceData(data);
    sandbox.stop();
  }
}

type UploadTarget = 'service' | 'forwarder' | 'fastify';

/**
 * The same uploads through the service or through one of the proxy bench's baselines (the lean
 * forwarder, the same in Fastify), each run with the start script's V8 flags: what the uploads add
 * over idle is then compared between a process that does nothing else and the service.
 */
async function uploadScenario(target: UploadTarget): Promise<Figure> {
  const upstream = await spawnHelperProcess('bench/lib/upstream-process.ts');
  const data = createServiceData();
  const seeded = await seedConnection(data, {
    provider: 'salesforce',
    url: upstream.info.url,
    accessToken: 'bench-access-token',
  });
  const party =
    target === 'service'
      ? await startServiceProcess({ ...serviceOptions, data })
      : await spawnHelperProcess(
          target === 'forwarder' ? 'bench/lib/lean-forwarder.ts' : 'bench/lib/fastify-forwarder.ts',
          [upstream.info.url],
          START_FLAGS,
        );
  const baseUrl = 'baseUrl' in party ? party.baseUrl : party.info.url;
  const token = target === 'service' ? seeded.token : 'bench-access-token';
  try {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const upload = async () => {
      // A streamed request body, as a client uploading a file sends it.
      const body = new ReadableStream<Uint8Array>({
        start() {},
        pull(controller) {
          if (sent >= UPLOAD_BYTES) {
            controller.close();
            return;
          }
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      let sent = 0;
      const response = await fetch(`${baseUrl}/v1/proxy/services/data/v62.0/sobjects/Document`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'content-length': String(UPLOAD_BYTES),
        },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await response.text();
      if (response.status !== 201) throw new Error(`upload: ${response.status} ${text.slice(0, 300)}`);
      if (!text.includes(`"received":${UPLOAD_BYTES}`)) throw new Error(`upload: upstream saw ${text}`);
    };
    await upload();
    const idleMiB = rssMiBOf(party.pid);
    const peak = samplePeakRss(party.pid, 20);
    const started = performance.now();
    await Promise.all(Array.from({ length: UPLOADS }, upload));
    const wallMs = performance.now() - started;
    return { idleMiB, peakMiB: peak(), wallMs };
  } finally {
    await party.stop();
    removeServiceData(data);
    await upstream.stop();
  }
}

const UPLOAD_TARGETS: UploadTarget[] = ['service', 'forwarder', 'fastify'];
const results: Record<string, Figure[]> = { inserts: [], service: [], forwarder: [], fastify: [] };
for (let run = 1; run <= RUNS; run += 1) {
  if (ONLY !== 'uploads') {
    const ins = await insertScenario(run);
    results['inserts']?.push(ins);
    console.log(
      `run ${run}: ${INSERTS} × ${RECORDS}-record inserts: RSS ${ins.idleMiB.toFixed(0)} MiB idle, peak ${ins.peakMiB.toFixed(0)} MiB, ${(ins.wallMs / 1000).toFixed(1)} s, load average ${loadavg()[0]?.toFixed(2)}`,
    );
  }
  if (ONLY !== 'inserts') {
    for (const target of UPLOAD_TARGETS) {
      const up = await uploadScenario(target);
      results[target]?.push(up);
      console.log(
        `run ${run}: ${UPLOADS} × ${UPLOAD_BYTES / 2 ** 20} MiB pass-through uploads, ${target.padEnd(9)}: RSS ${up.idleMiB.toFixed(0)} MiB idle, peak ${up.peakMiB.toFixed(0)} MiB (+${(up.peakMiB - up.idleMiB).toFixed(0)}), ${(up.wallMs / 1000).toFixed(1)} s, load average ${loadavg()[0]?.toFixed(2)}`,
      );
    }
  }
}
const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0]?.toFixed(0)}–${s.at(-1)?.toFixed(0)} MiB (median ${s[Math.floor(s.length / 2)]?.toFixed(0)})`;
};
console.log(`\npeak service RSS over ${RUNS} runs:`);
if (ONLY !== 'uploads')
  console.log(
    `  ${INSERTS} × ${RECORDS}-record inserts (target < 300 MiB): ${spread((results['inserts'] ?? []).map((f) => f.peakMiB))}`,
  );
if (ONLY !== 'inserts') {
  console.log(
    `  ${UPLOADS} × 10 MiB pass-through uploads (target < 200 MiB): ${spread((results['service'] ?? []).map((f) => f.peakMiB))}`,
  );
  console.log(`the same uploads, what they add over each process's idle RSS (peak − idle):`);
  for (const target of UPLOAD_TARGETS)
    console.log(
      `  ${target.padEnd(9)} idle ${spread((results[target] ?? []).map((f) => f.idleMiB))}, added ${spread((results[target] ?? []).map((f) => f.peakMiB - f.idleMiB))}`,
    );
}
