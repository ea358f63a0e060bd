// HubSpot get under HubSpot's rate limit: 10 000 contacts read as 100 concurrent get requests of
// 100 ids through the service, against the HubSpot sandbox with its limits on (190 calls per
// rolling 10 s per app by default). Prints the 429s that reached the client (must be 0), the
// 429s HubSpot sent the service, the wall time and its ratio to the floor the rate limit allows.
// Run: npm run bench -- hubspot-get
//   BENCH_ROUNDS (default 3): how many times the 10 000 contacts are read, one round after the other
//   BENCH_HS_LIMIT (default: the sandbox's 190): calls per 10-second window
import { startHubSpotSandbox } from '../sandbox/hubspot/index.ts';
import { startBenchService } from './lib/harness.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const LIMIT = process.env['BENCH_HS_LIMIT'] === undefined ? undefined : Number(process.env['BENCH_HS_LIMIT']);
const RECORDS = 10_000;
const PER_REQUEST = 100;
const FIELDS = ['email', 'firstname', 'lastname'];
// Bounded: whatever happens, the process ends.
const deadline = setTimeout(() => {
  console.error('hubspot-get bench: gave up after 180 s');
  process.exit(1);
}, 180_000);

const sandbox = await startHubSpotSandbox({ port: 0, seed: false });
const bench = await startBenchService({ hubspot: sandbox.credentials });
const { service } = bench;

try {
  // The contacts are created through HubSpot's API with the private app, whose window is its own,
  // so the service's OAuth app starts with an empty window.
  const ids: string[] = [];
  for (let i = 0; i < RECORDS; i += 100) {
    const inputs = Array.from({ length: 100 }, (_, j) => ({
      properties: { email: `bench${i + j}@example.com`, firstname: `First${i + j}`, lastname: 'Bench' },
    }));
    const created = await fetch(`${sandbox.url}/crm/v3/objects/contacts/batch/create`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.credentials.privateAppToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ inputs }),
    });
    if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
    const body = (await created.json()) as { results: Array<{ id: string }> };
    ids.push(...body.results.map((r) => r.id));
  }

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
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await Promise.all(
      Array.from({ length: RECORDS / PER_REQUEST }, async (_, r) => {
        const slice = ids.slice(r * PER_REQUEST, (r + 1) * PER_REQUEST);
        const response = await fetch(`${service.baseUrl}/v1/object/get/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ data: { ids: slice, fields: FIELDS } }),
        });
        const body = (await response.json()) as { data?: Array<{ id: string } | null> };
        return { status: response.status, ok: body.data?.every((rec, i) => rec?.id === slice[i]) === true };
      }),
    );
    for (const a of answers) {
      if (a.status === 429) client429 += 1;
      else if (a.status !== 200 || !a.ok) failures += 1;
    }
  }
  const wallMs = performance.now() - started;

  const calls = sandbox.accounting.snapshot().total;
  // From an empty rolling window of L calls per 10 s, call number C cannot leave before
  // floor((C - 1) / L) windows have passed.
  const floorMs = Math.floor((calls - 1) / limits.perTenSeconds) * 10_000;
  console.log(
    `records read            ${ROUNDS} x ${RECORDS} (${ROUNDS * (RECORDS / PER_REQUEST)} get requests of ${PER_REQUEST} ids, 100 at once)`,
  );
  console.log(`HubSpot limit           ${limits.perTenSeconds} calls / 10 s (sandbox, enforced)`);
  console.log(`HubSpot calls           ${calls}`);
  console.log(`429s to the client      ${client429}${client429 === 0 ? '' : '   <-- must be 0'}`);
  console.log(`429s from HubSpot       ${crm429}`);
  console.log(`failed requests         ${failures}`);
  console.log(`wall time               ${(wallMs / 1000).toFixed(2)} s`);
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
