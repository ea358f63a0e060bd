// Pass-through (/v1/proxy/...) against the same requests sent straight to the Salesforce sandbox,
// in the same run: throughput ratio, added p50/p99 latency, and the process's memory.
// Run: npm run bench -- proxy   (BENCH_SECONDS per scenario, default 5; each run also has a request cap)
import autocannon from 'autocannon';
import { spawnSalesforceSandbox, startBenchService } from './lib/harness.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const MB = 1024 * 1024;

// The sandbox runs in its own process (another core), so the difference is the service's own cost.
const sandbox = await spawnSalesforceSandbox(10);

const mib = (bytes: number) => (bytes / MB).toFixed(0);
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);

const bench = await startBenchService({ salesforce: sandbox.credentials });
const { service } = bench;
try {
  const created = await bench.connect('salesforce', sandbox);
  const accessToken = await service.ctx.tokens.accessToken(created.connection);

  // A 1 MB create whose Description is over the field's length: Salesforce reads and parses it all,
  // then answers 400 STRING_TOO_LONG, so nothing piles up in the sandbox however many runs.
  const bigBody = JSON.stringify({ Name: 'Bench', Description: 'x'.repeat(MB) });
  const scenarios = [
    {
      label: 'GET one record',
      method: 'GET',
      path: `/services/data/v62.0/sobjects/Account/${sandbox.ids[0]}`,
      body: undefined,
      expect: 200,
      connections: 10,
      cap: 20_000,
    },
    {
      label: 'POST 1 MB',
      method: 'POST',
      path: '/services/data/v62.0/sobjects/Account',
      body: bigBody,
      expect: 400,
      connections: 4,
      cap: 1_500,
    },
  ] as const;

  const rows: string[] = [];
  const fmt = (n: number, d = 1) => n.toFixed(d).padStart(9);
  rows.push('scenario         target   conns    req/s    p50 ms    p99 ms  requests  peak RSS MiB');
  const rssBefore = process.memoryUsage().rss;
  for (const s of scenarios) {
    const headers = (authorization: string): Record<string, string> => ({
      authorization,
      ...(s.body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    const direct = { url: `${sandbox.url}${s.path}`, headers: headers(`Bearer ${accessToken}`) };
    const proxied = {
      url: `${service.baseUrl}/v1/proxy${s.path}`,
      headers: headers(`Bearer ${created.token}`),
    };
    for (const call of [direct, proxied]) {
      const probe = await fetch(call.url, { method: s.method, headers: call.headers, body: s.body ?? null });
      await probe.arrayBuffer();
      if (probe.status !== s.expect) throw new Error(`${call.url}: ${probe.status}, expected ${s.expect}`);
    }
    const results = [];
    for (const [target, call] of [
      ['direct', direct],
      ['proxy', proxied],
    ] as const) {
      if (typeof globalThis.gc === 'function') globalThis.gc();
      peak = process.memoryUsage().rss;
      // The load generator runs in a worker thread, off the service's event loop.
      const r = await autocannon({
        url: call.url,
        method: s.method,
        headers: call.headers,
        ...(s.body === undefined ? {} : { body: s.body }),
        connections: s.connections,
        duration: SECONDS,
        maxOverallRequests: s.cap,
        workers: 1,
        timeout: 30,
      });
      if (r.errors > 0 || r.timeouts > 0)
        throw new Error(`${target} ${s.label}: ${r.errors} errors, ${r.timeouts} timeouts`);
      if (s.expect === 200 && r.non2xx > 0) throw new Error(`${target} ${s.label}: ${r.non2xx} non-2xx`);
      results.push(r);
      rows.push(
        `${s.label.padEnd(15)}  ${target.padEnd(7)} ${String(s.connections).padStart(5)} ${fmt(r.requests.average)} ${fmt(r.latency.p50)} ${fmt(r.latency.p99)} ${String(r.requests.total).padStart(9)} ${mib(peak).padStart(13)}`,
      );
    }
    const [d, p] = results as [autocannon.Result, autocannon.Result];
    rows.push(
      `${s.label.padEnd(15)}  proxy/direct throughput ×${(p.requests.average / d.requests.average).toFixed(2)}, added p50 ${(p.latency.p50 - d.latency.p50).toFixed(1)} ms, added p99 ${(p.latency.p99 - d.latency.p99).toFixed(1)} ms`,
    );
  }
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const rssAfter = process.memoryUsage().rss;
  console.log(
    `\npass-through vs straight to the Salesforce sandbox (at most ${SECONDS} s and a request cap per run;\nsandbox in its own process, load generator in a worker thread of this process, so RSS includes it:\ncompare the proxy rows' peak with the direct rows')\n`,
  );
  console.log(rows.join('\n'));
  console.log(`\nprocess RSS: before ${mib(rssBefore)} MiB, after ${mib(rssAfter)} MiB (after a GC)`);
} finally {
  clearInterval(sampler);
  await bench.close();
  sandbox.stop();
}
