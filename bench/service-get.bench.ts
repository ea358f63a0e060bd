// Throughput and latency of `get` through the service, beside the same sObject Collections
// retrieve sent straight to the Salesforce sandbox with the same access token.
// Run: npm run bench -- service-get   (BENCH_SECONDS per scenario, default 5)
import autocannon from 'autocannon';
import { spawnSalesforceSandbox, startBenchService } from './lib/harness.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const FIELDS = ['Name', 'Industry'];

// The sandbox runs in its own process (another core), so the difference is the service's own cost.
const sandbox = await spawnSalesforceSandbox(2000);
const ids = sandbox.ids;

const bench = await startBenchService({ salesforce: sandbox.credentials });
const { service } = bench;
try {
  const created = await bench.connect('salesforce', sandbox);

  const serviceCall = (n: number) => ({
    url: `${service.baseUrl}/v1/object/get/Account`,
    method: 'POST',
    headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: { ids: ids.slice(0, n), fields: FIELDS } }),
  });
  // Warm up: token cached, describe cached, sockets open.
  const warm = await fetch(serviceCall(1).url, { ...serviceCall(1) });
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status} ${await warm.text()}`);
  const connection = (await service.ctx.connections.get(created.connection.id))?.connection;
  if (connection === undefined) throw new Error('no connection');
  const accessToken = await service.ctx.tokens.accessToken(connection);
  const directCall = (n: number) => ({
    url: `${sandbox.url}/services/data/v62.0/composite/sobjects/Account`,
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ids: ids.slice(0, n), fields: ['Id', ...FIELDS] }),
  });

  const run = async (
    call: ReturnType<typeof serviceCall>,
    connections: number,
    maxRequests: number,
  ): Promise<autocannon.Result> => {
    // The load generator runs in a worker thread, so it does not compete with the service's event loop.
    const result = await autocannon({
      ...call,
      connections,
      duration: SECONDS,
      maxOverallRequests: maxRequests,
      workers: 1,
      timeout: 30,
    });
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(`${call.url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
    }
    return result;
  };

  const rows: string[] = [];
  const fmt = (n: number, d = 1) => n.toFixed(d).padStart(9);
  rows.push(`scenario          target   conns   req/s      p50 ms    p99 ms   requests`);
  for (const [label, n, connections, maxRequests] of [
    ['get 1 id', 1, 10, 20_000],
    ['get 2000 ids', 2000, 4, 400],
  ] as const) {
    const direct = await run(directCall(n), connections, maxRequests);
    const proxied = await run(serviceCall(n), connections, maxRequests);
    for (const [target, r] of [
      ['direct', direct],
      ['service', proxied],
    ] as const) {
      rows.push(
        `${label.padEnd(16)}  ${target.padEnd(7)} ${String(connections).padStart(5)} ${fmt(r.requests.average)} ${fmt(r.latency.p50)} ${fmt(r.latency.p99)} ${String(r.requests.total).padStart(9)}`,
      );
    }
    rows.push(
      `${label.padEnd(16)}  ratio service/direct: req/s ×${(proxied.requests.average / direct.requests.average).toFixed(2)}, p50 ×${(proxied.latency.p50 / Math.max(direct.latency.p50, 0.001)).toFixed(2)}, p99 ×${(proxied.latency.p99 / Math.max(direct.latency.p99, 0.001)).toFixed(2)}`,
    );
  }
  console.log(
    `\nget through the service vs straight to the Salesforce sandbox (at most ${SECONDS} s per run and a request cap;\nthe sandbox runs in its own process, the load generator in a worker thread)\n`,
  );
  console.log(rows.join('\n'));
} finally {
  await bench.close();
  sandbox.stop();
}
