// The cost of durable writes: small inserts with an Idempotency-Key, with Prefer: respond-async,
// and replays, against the plain synchronous insert in the same run; then memory with 10
// concurrent 10 000-record async jobs.
// Run: npm run bench -- durable-writes   (BENCH_REQUESTS per scenario, default 2000)
import { spawn } from 'node:child_process';
import { spawnSalesforceSandbox, startBenchService } from './lib/harness.ts';

const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 2000);
const CONNECTIONS = 10;
const RECORDS_PER_REQUEST = 5;

interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
  '2xx': number;
}

/** autocannon in its own process: the load generator never competes with the service's event loop. */
function load(
  url: string,
  headers: Record<string, string>,
  body: string,
  amount: number,
): Promise<LoadResult> {
  // `[<id>]` in a header or the body becomes a fresh id per request (unique Idempotency-Keys).
  const options = {
    url,
    method: 'POST',
    headers,
    body,
    connections: CONNECTIONS,
    amount,
    timeout: 60,
    idReplacement: Object.values(headers).some((v) => v.includes('[<id>]')),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/lib/load-process.ts'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}`));
      const result = JSON.parse(out) as LoadResult;
      if (result.errors > 0 || result.non2xx > 0) {
        return reject(new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`));
      }
      resolve(result);
    });
    child.stdin.end(JSON.stringify(options));
  });
}

const sandbox = await spawnSalesforceSandbox(0);
const bench = await startBenchService({ salesforce: sandbox.credentials });
const { service } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
try {
  const { token } = await bench.connect('salesforce', sandbox);
  const url = `${service.baseUrl}/v1/object/insert/Account`;
  const base = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({
    data: Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({
      Name: `Durable bench ${i}`,
      Industry: 'Energy',
    })),
  });
  const warm = await fetch(url, { method: 'POST', headers: base, body });
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status} ${await warm.text()}`);

  const unfinished = async () =>
    (await service.ctx.store.jobs.list({ limit: 1000 })).filter(
      (j) => j.state === 'queued' || j.state === 'running',
    ).length;

  const rows: Array<[string, LoadResult, string]> = [];
  const plain = await load(url, base, body, REQUESTS);
  rows.push(['plain synchronous', plain, '']);
  const keyed = await load(url, { ...base, 'idempotency-key': '[<id>]' }, body, REQUESTS);
  rows.push(['Idempotency-Key (new key each)', keyed, '']);
  await fetch(url, { method: 'POST', headers: { ...base, 'idempotency-key': 'bench-replay' }, body });
  const replay = await load(url, { ...base, 'idempotency-key': 'bench-replay' }, body, REQUESTS);
  rows.push(['replay of one key', replay, '']);
  const started = performance.now();
  const asyncRun = await load(url, { ...base, prefer: 'respond-async' }, body, REQUESTS);
  while ((await unfinished()) > 0) await sleep(20);
  const drained = performance.now() - started;
  rows.push([
    'Prefer: respond-async (202)',
    asyncRun,
    `all ${REQUESTS} jobs done ${(drained / 1000).toFixed(1)} s after the first request (sync: ${(REQUESTS / plain.requests.average || 0).toFixed(1)} s)`,
  ]);

  const fmt = (n: number, d = 1) => n.toFixed(d).padStart(9);
  console.log(
    `\n${REQUESTS} inserts of ${RECORDS_PER_REQUEST} records per scenario, ${CONNECTIONS} connections; the sandbox and autocannon each in their own process\n`,
  );
  console.log('scenario                          req/s    p50 ms    p99 ms   req/s ×   p50 ×');
  for (const [label, r, extra] of rows) {
    console.log(
      `${label.padEnd(30)} ${fmt(r.requests.average)} ${fmt(r.latency.p50)} ${fmt(r.latency.p99)} ${fmt(r.requests.average / plain.requests.average, 2)} ${fmt(r.latency.p50 / Math.max(plain.latency.p50, 0.001), 2)}${extra ? `\n    ${extra}` : ''}`,
    );
  }

  // Memory: 10 concurrent async jobs of 10 000 records each (the service's choice of interface).
  const big = JSON.stringify({
    data: Array.from({ length: 10_000 }, (_, i) => ({
      Name: `Durable mem ${i}`,
      Industry: 'Energy',
      Phone: '+1 555 0100',
    })),
  });
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 25);
  const t0 = performance.now();
  const accepted = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { ...base, prefer: 'respond-async' },
        body: big,
      });
      if (r.status !== 202) throw new Error(`async job refused: ${r.status}`);
      return ((await r.json()) as { id: string }).id;
    }),
  );
  for (;;) {
    const jobs = await Promise.all(accepted.map((id) => service.ctx.store.jobs.find(id)));
    if (jobs.every((j) => j !== null && !['queued', 'running'].includes(j.state))) {
      const ok = jobs.reduce((n, j) => n + (j?.succeeded ?? 0), 0);
      clearInterval(sampler);
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
      console.log(
        `\n10 concurrent async 10 000-record inserts (${jobs[0]?.interface}): ${ok} records written in ${((performance.now() - t0) / 1000).toFixed(1)} s; service process RSS ${mb(baseline)} before, peak ${mb(peak)} (+${mb(peak - baseline)})`,
      );
      break;
    }
    await sleep(50);
  }
} finally {
  await bench.close();
  sandbox.stop();
}
