// A Salesforce sandbox in its own process, so the service can be killed without killing the CRM
// (as in production). argv[2]: realism JSON. Prints one JSON line {url, credentials}; then answers
// `{"count": prefix}` lines on stdin with the Account records whose Name starts with prefix
// (`{"total", "distinct", "ids"}`), and stops when stdin closes.
import { createInterface } from 'node:readline';
import { startSalesforceSandbox } from '../../sandbox/salesforce/index.ts';

const sandbox = await startSalesforceSandbox({
  port: 0,
  dailyApiRequests: 100_000_000,
  realism: JSON.parse(process.argv[2] ?? '{}') as Record<string, number>,
});
process.stdout.write(`${JSON.stringify({ url: sandbox.url, credentials: sandbox.credentials })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { count } = JSON.parse(line) as { count: string };
  const run = sandbox.org.query(`SELECT Id, Name FROM Account WHERE Name LIKE '${count}%'`, {});
  const records = run.records as unknown as Array<{ Id: string; Name: string }>;
  const distinct = new Set(records.map((r) => r.Name)).size;
  process.stdout.write(
    `${JSON.stringify({ total: records.length, distinct, ids: records.map((r) => r.Id) })}\n`,
  );
});
lines.on('close', () => {
  void sandbox.close().then(() => process.exit(0));
});
