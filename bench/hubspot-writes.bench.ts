// HubSpot insert under HubSpot's rate limit: 10 000 contacts per insert request through the service
// (batches of 100 in parallel, paced per connection), against the HubSpot sandbox with its limits on
// (190 calls per rolling 10 s per app by default). Prints the 429s that reached the client (must
// be 0), the 429s HubSpot sent the service, the HubSpot calls, the wall time and its ratio to the
// floor the rate limit allows for those calls.
// Run: npm run bench -- hubspot-writes
//   BENCH_ROUNDS (default 3): how many 10 000-record inserts, one after the other
//   BENCH_HS_LIMIT (default: the sandbox's 190): calls per 10-second window
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startHubSpotSandbox } from '../sandbox/hubspot/index.ts';
import { startBenchService } from './lib/harness.ts';
import { longestTurnCpu } from './lib/loop-cpu.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const LIMIT = process.env['BENCH_HS_LIMIT'] === undefined ? undefined : Number(process.env['BENCH_HS_LIMIT']);
const RECORDS = 10_000;
// Bounded: whatever happens, the process ends.
const deadline = setTimeout(() => {
  console.error('hubspot-writes bench: gave up after 240 s');
  process.exit(1);
}, 240_000);

const sandbox = await startHubSpotSandbox({ port: 0, seed: false });
const bench = await startBenchService({ hubspot: sandbox.credentials });
const { service } = bench;

try {
  const { token } = await bench.connect('hubspot', sandbox);
  let crm429 = 0;
  service.ctx.client.addHook((event) => {
    if (event.status === 429) crm429 += 1;
  });
  if (LIMIT !== undefined) {
    await fetch(`${sandbox.url}/__sandbox/rate-limits`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ perTenSeconds: LIMIT }),
    });
  }
  const limits = (await (await fetch(`${sandbox.url}/__sandbox/rate-limits`)).json()) as {
    perTenSeconds: number;
  };
  sandbox.accounting.reset();

  let client429 = 0;
  let failures = 0;
  const perRound: number[] = [];
  // The longest the event loop was held (service and sandbox both run in this process).
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const turns = longestTurnCpu();
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = performance.now();
    const data = Array.from({ length: RECORDS }, (_, i) => ({
      email: `w${round}-${i}@example.com`,
      firstname: `First${i}`,
      lastname: 'Bench',
      lifecyclestage: 'lead',
    }));
    const response = await fetch(`${service.baseUrl}/v1/object/insert/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data }),
    });
    const body = (await response.json()) as { data?: Array<{ success: boolean }> };
    if (response.status === 429) client429 += 1;
    else if (response.status !== 200 || body.data?.length !== RECORDS) failures += 1;
    else failures += body.data.filter((r) => !r.success).length;
    perRound.push(performance.now() - t0);
  }
  const wallMs = performance.now() - started;
  loop.disable();
  const turnCpuMs = turns.stop();

  const calls = sandbox.accounting.snapshot().total;
  const creates = sandbox.accounting.count('objects.batch.create');
  // From an empty rolling window of L calls per 10 s, call number C cannot leave before
  // floor((C - 1) / L) windows have passed.
  const floorMs = Math.floor((calls - 1) / limits.perTenSeconds) * 10_000;
  console.log(
    `records inserted        ${ROUNDS} x ${RECORDS} (one insert request each, one after the other)`,
  );
  console.log(`HubSpot limit           ${limits.perTenSeconds} calls / 10 s (sandbox, enforced)`);
  console.log(`HubSpot calls           ${calls} (${creates} batch/create of 100)`);
  console.log(`429s to the client      ${client429}${client429 === 0 ? '' : '   <-- must be 0'}`);
  console.log(`429s from HubSpot       ${crm429}`);
  console.log(`failed records          ${failures}`);
  console.log(`per request             ${perRound.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}`);
  console.log(`wall time               ${(wallMs / 1000).toFixed(2)} s`);
  console.log(`longest loop turn       ${turnCpuMs.toFixed(0)} ms of CPU (service and sandbox)`);
  console.log(
    `event loop delay        max ${(loop.max / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms`,
  );
  console.log(
    floorMs === 0
      ? 'rate-limit floor        0 s (every call fits in one window): ratio n/a'
      : `rate-limit floor        ${(floorMs / 1000).toFixed(2)} s   ratio wall/floor ${(wallMs / floorMs).toFixed(2)}`,
  );
  if (client429 !== 0 || failures !== 0) process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  await bench.close();
  await sandbox.close();
}
