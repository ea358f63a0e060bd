// Child process of the benchmarks (bench/lib/harness.ts): a Salesforce sandbox on its own event loop
// (and core), seeded with accounts. Prints one JSON line {url, credentials, ids}; stops when stdin
// closes. A line `prune` on stdin drops every Account but the seeded ones (answered `pruned`), so
// that a benchmark inserting records keeps measuring the same org instead of an ever larger one.
import { createInterface } from 'node:readline';
import { startSalesforceSandbox } from '../sandbox/salesforce/index.ts';

const count = Number(process.argv[2] ?? 2000);
const sandbox = await startSalesforceSandbox({ port: 0, dailyApiRequests: 100_000_000 });
const ids = sandbox.org
  .insert(
    'Account',
    Array.from({ length: count }, (_, i) => ({ Name: `Bench ${i}`, Industry: 'Energy' })),
  )
  .map((r) => r.id);
process.stdout.write(`${JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials, ids })}\n`);
const seeded = new Set(ids);
const account = sandbox.org.object('Account');
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line !== 'prune' || account === undefined) return;
  const table = sandbox.org.table(account);
  for (const id of [...table.rows.keys()]) if (!seeded.has(id)) table.remove(id);
  process.stdout.write('pruned\n');
});
process.stdin.on('end', () => {
  void sandbox.close().then(() => process.exit(0));
});
