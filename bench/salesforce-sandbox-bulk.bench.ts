/**
 * How long a 10 000-record Bulk API 2.0 insert takes in the Salesforce sandbox with no injected
 * latency (create job, upload CSV, close, poll to JobComplete, fetch the result files), beside a
 * baseline in the same run: the same 10 000 records through sObject Collections, 200 per call.
 * Also prints the process's RSS and heap growth over the Bulk run (the sandbox runs in-process,
 * so this is the sandbox's cost for keeping the job, its rows and its results).
 *
 * Run: npm run bench -- salesforce-sandbox
 */
import { startSalesforceSandbox } from '../sandbox/salesforce/index.ts';

const N = 10_000;
const sf = await startSalesforceSandbox({ port: 0 });
const auth = { authorization: `Bearer ${sf.credentials.accessToken}` };
const data = `${sf.url}/services/data/v62.0`;

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;

async function json(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method,
    headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

function csvFor(prefix: string, n: number): string {
  const lines = ['Name,External_Id__c,NumberOfEmployees,Description'];
  for (let i = 0; i < n; i++) lines.push(`${prefix} ${i},${prefix}-${i},${i},"Row ${i}, loaded in bulk"`);
  return `${lines.join('\n')}\n`;
}

async function bulk2(prefix: string, n: number) {
  const phases: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    phases[name] = now - t;
    t = now;
  };
  const csv = csvFor(prefix, n);
  const job = await json('POST', `${data}/jobs/ingest`, {
    object: 'Account',
    operation: 'insert',
    lineEnding: 'LF',
  });
  lap('create');
  const put = await fetch(`${data}/jobs/ingest/${job.id}/batches`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'text/csv' },
    body: csv,
  });
  if (put.status !== 201) throw new Error(`upload: ${put.status}`);
  lap('upload');
  await json('PATCH', `${data}/jobs/ingest/${job.id}`, { state: 'UploadComplete' });
  lap('close');
  let info = await json('GET', `${data}/jobs/ingest/${job.id}`);
  let polls = 1;
  while (info.state !== 'JobComplete' && info.state !== 'Failed') {
    await new Promise((r) => setTimeout(r, 5));
    info = await json('GET', `${data}/jobs/ingest/${job.id}`);
    polls += 1;
  }
  lap('poll to JobComplete');
  const ok = await (
    await fetch(`${data}/jobs/ingest/${job.id}/successfulResults/`, { headers: auth })
  ).text();
  const failed = await (
    await fetch(`${data}/jobs/ingest/${job.id}/failedResults/`, { headers: auth })
  ).text();
  lap('fetch results');
  const okRows = ok.trimEnd().split('\n').length - 1;
  const failedRows = failed.trimEnd().split('\n').length - 1;
  if (info.state !== 'JobComplete' || okRows !== n || failedRows !== 0) {
    throw new Error(`bulk job ended ${String(info.state)} with ${okRows} ok / ${failedRows} failed rows`);
  }
  return { phases, polls, total: Object.values(phases).reduce((a, b) => a + b, 0) };
}

async function collections(prefix: string, n: number) {
  const start = performance.now();
  let calls = 0;
  for (let i = 0; i < n; i += 200) {
    const records = [];
    for (let k = i; k < Math.min(i + 200, n); k++) {
      records.push({
        attributes: { type: 'Account' },
        Name: `${prefix} ${k}`,
        External_Id__c: `${prefix}-${k}`,
        NumberOfEmployees: k,
        Description: `Row ${k}, loaded in bulk`,
      });
    }
    const res = await fetch(`${data}/composite/sobjects`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ allOrNone: false, records }),
    });
    const out = (await res.json()) as { success: boolean }[];
    if (!out.every((r) => r.success)) throw new Error('a collections insert failed');
    calls += 1;
  }
  return { total: performance.now() - start, calls };
}

// Warm-up: JIT and first-use costs out of the measured runs.
await bulk2('warm', 200);
await collections('warmc', 200);

gc?.();
const before = process.memoryUsage();
const b = await bulk2('bulk', N);
const afterBulk = process.memoryUsage();
gc?.();
const afterGc = process.memoryUsage();
const c = await collections('coll', N);

console.log(`Salesforce sandbox, ${N} Account inserts, no injected latency (node ${process.version})`);
console.log(
  '(client and sandbox share one process: processing that starts at close shows up in the close and poll phases)',
);
console.log('');
console.log(`Bulk API 2.0 job            ${ms(b.total).padStart(8)}   (${b.polls} polls)`);
for (const [phase, t] of Object.entries(b.phases)) console.log(`  ${phase.padEnd(26)}${ms(t).padStart(8)}`);
console.log(`Collections, 200 per call   ${ms(c.total).padStart(8)}   (${c.calls} calls)   baseline`);
console.log(`ratio bulk / collections    ${(b.total / c.total).toFixed(2)}x`);
console.log('');
console.log(
  `memory over the Bulk run    RSS +${mb(afterBulk.rss - before.rss)}, heap +${mb(afterBulk.heapUsed - before.heapUsed)}`,
);
console.log(
  `  retained after GC         heap +${mb(afterGc.heapUsed - before.heapUsed)} (job rows and results kept for the result files)${gc ? '' : ' [no --expose-gc]'}`,
);
await sf.close();
