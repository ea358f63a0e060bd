// The Salesforce Bulk API 2.0 write path alone, in this process: 10 000 records of ~800 bytes
// (mostly non-ASCII) prepared, turned into CSV rows and an upload body, and matched back from a
// result file, against a fake Bulk endpoint that does no work. Prints wall time, the longest event-loop turn
// (wall, and CPU time, which a loaded machine does not inflate) and the p99 turn, per run.
// Run: npm run bench -- salesforce-bulk-turns   (BENCH_RUNS, default 4)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { stringify } from 'csv-stringify/sync';
import { systemClock } from '../src/lib/clock.ts';
import type { CrmSession } from '../src/providers/adapter.ts';
import { bulkWrite } from '../src/providers/salesforce/bulk2.ts';
import { prepareRecords, toCsvRows } from '../src/providers/salesforce/format.ts';
import type { Org } from '../src/providers/salesforce/org.ts';
import { longestTurnCpu } from './lib/loop-cpu.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 4);
const N = 10_000;
const description = `${'é'.repeat(380)}${'x'.repeat(20)}`;
const meta = { name: 'Account', fields: [{ name: 'Name' }, { name: 'Description' }] };
const records = Array.from({ length: N }, (_, i) => ({ name: `Worst ${i}`, description }));
// Every row succeeded; the file lists them in reverse order.
const success = stringify([
  ['sf__Id', 'sf__Created', 'Name', 'Description'],
  ...Array.from({ length: N }, (_, i) => [
    `001J${String(i).padStart(14, '0')}`,
    'true',
    `Worst ${i}`,
    description,
  ]).reverse(),
]);
const answer = (status: number, text: string) => ({ status, headers: {}, text, attempts: 1 });
/** A result file, handed to the caller's reader in 64 KiB reads, one a turn, as from a socket. */
const file = async (r: { read?: (body: Readable) => Promise<void> }, text: string) => {
  if (r.read === undefined) return answer(200, text);
  const bytes = Buffer.from(text);
  await r.read(
    Readable.from(
      (async function* () {
        for (let at = 0; at < bytes.length; at += 65_536) {
          await setImmediate();
          yield bytes.subarray(at, at + 65_536);
        }
      })(),
    ),
  );
  return answer(200, '');
};
const session: CrmSession = {
  connectionId: 'c',
  baseUrl: 'https://sf.test',
  async send(r) {
    // An answer comes back in a later turn of the event loop, as from a socket.
    await setImmediate();
    if (r.method === 'POST') return answer(200, JSON.stringify({ id: '750J', state: 'Open' }));
    if (r.method === 'PUT') {
      // The upload pulls the CSV stream as a socket would.
      if (typeof r.body === 'function') for await (const _ of r.body()) await setImmediate();
      return answer(201, '');
    }
    if (r.method === 'PATCH') return answer(200, JSON.stringify({ id: '750J', state: 'UploadComplete' }));
    if (r.url.endsWith('/successfulResults/')) return file(r, success);
    if (r.url.endsWith('/failedResults/')) return file(r, 'sf__Id,sf__Error,Name,Description\n');
    return answer(200, JSON.stringify({ id: '750J', state: 'JobComplete' }));
  },
};

for (let run = 0; run < RUNS; run++) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const turns = longestTurnCpu();
  const started = performance.now();
  const prepared = prepareRecords(meta, records, 'insert');
  const { header, rows } = toCsvRows(prepared);
  const org = {
    session,
    // Polls at once: the fake job is complete when first asked.
    clock: { now: systemClock.now, sleep: () => Promise.resolve() },
    api: `${session.baseUrl}/services/data/v62.0`,
  };
  const results = await bulkWrite(org as unknown as Org, 'insert', 'Account', header, rows);
  const wallMs = performance.now() - started;
  const cpuMs = turns.stop();
  loop.disable();
  const matched = results.filter((r) => r.success).length;
  console.log(
    `run ${run}: ${matched} matched, wall ${wallMs.toFixed(0)} ms, longest turn ${(loop.max / 1e6).toFixed(1)} ms (CPU ${cpuMs.toFixed(1)} ms), p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms`,
  );
}
