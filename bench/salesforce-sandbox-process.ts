// Child process of bench/service-get.bench.ts: a Salesforce sandbox on its own event loop (and core),
// seeded with accounts. Prints one JSON line {url, credentials, ids}; stops when stdin closes.
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
process.stdin.resume();
process.stdin.on('end', () => {
  void sandbox.close().then(() => process.exit(0));
});
