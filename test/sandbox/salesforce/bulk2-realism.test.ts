import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type SalesforceSandbox, startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { POLL_DEADLINE_MS } from '../../helpers/wait.ts';

type T = { after: (fn: () => Promise<void>) => void };

async function start(t: T, options: Parameters<typeof startSalesforceSandbox>[0] = {}) {
  const sf = await startSalesforceSandbox({ port: 0, ...options });
  t.after(() => sf.close());
  return sf;
}

async function api(
  sf: SalesforceSandbox,
  method: string,
  path: string,
  body?: unknown,
  type = 'application/json',
) {
  const res = await fetch(`${sf.url}/services/data/v62.0/jobs/ingest${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sf.credentials.accessToken}`,
      ...(body !== undefined ? { 'content-type': type } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json:
      /json/.test(res.headers.get('content-type') ?? '') && text
        ? (JSON.parse(text) as Record<string, unknown>)
        : {},
  };
}

async function openJob(sf: SalesforceSandbox, csv: string) {
  const id = String((await api(sf, 'POST', '', { object: 'Account', operation: 'insert' })).json.id);
  assert.equal((await api(sf, 'PUT', `/${id}/batches`, csv, 'text/csv')).status, 201);
  return id;
}

async function waitWhile(sf: SalesforceSandbox, id: string, states: string[]) {
  for (const deadline = Date.now() + POLL_DEADLINE_MS; Date.now() < deadline; ) {
    const info = (await api(sf, 'GET', `/${id}`)).json;
    if (!states.includes(String(info.state))) return info;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`gave up waiting for job ${id} to leave ${states.join(', ')}`);
}

const rows = (n: number) => `Name\n${Array.from({ length: n }, (_v, i) => `Row ${i}`).join('\n')}\n`;

test('with per-record latency the job is seen InProgress; aborting it leaves its rows unprocessed', async (t) => {
  // 40 rows × 250 ms: the job stays InProgress for 10 s, so the abort lands in time on a busy machine.
  const sf = await start(t, { realism: { perRecordMs: 250 } });
  const id = await openJob(sf, rows(40));
  const closed = await api(sf, 'PATCH', `/${id}`, { state: 'UploadComplete' });
  assert.equal(closed.json.state, 'UploadComplete');
  const running = await waitWhile(sf, id, ['UploadComplete']);
  assert.equal(running.state, 'InProgress');
  assert.equal(running.numberRecordsProcessed, 0);
  const aborted = await api(sf, 'PATCH', `/${id}`, { state: 'Aborted' });
  assert.equal(aborted.json.state, 'Aborted');
  const un = parse((await api(sf, 'GET', `/${id}/unprocessedrecords/`)).text, { columns: true }) as {
    Name: string;
  }[];
  assert.equal(un.length, 40);
  assert.equal(un[0]?.Name, 'Row 0');
  assert.equal(sf.org.query("SELECT COUNT() FROM Account WHERE Name LIKE 'Row %'").totalSize, 0);
});

test('an injected lock fault on the close call fails every row with UNABLE_TO_LOCK_ROW', async (t) => {
  const sf = await start(t);
  sf.realism.script([{ kind: 'lock', match: 'bulk2.close' }]);
  const id = await openJob(sf, rows(3));
  assert.equal((await api(sf, 'PATCH', `/${id}`, { state: 'UploadComplete' })).status, 200);
  const info = await waitWhile(sf, id, ['UploadComplete', 'InProgress']);
  assert.equal(info.state, 'JobComplete');
  assert.equal(info.numberRecordsFailed, 3);
  const failed = parse((await api(sf, 'GET', `/${id}/failedResults/`)).text, { columns: true }) as {
    sf__Error: string;
  }[];
  assert.equal(failed.length, 3);
  assert.match(
    failed[0]?.sf__Error ?? '',
    /^UNABLE_TO_LOCK_ROW:unable to obtain exclusive access to this record/,
  );
});

test('Bulk answers carry Sforce-Limit-Info; internal batches count toward DailyBulkApiBatches and run out', async (t) => {
  const sf = await start(t, { dailyBulkApiBatches: 1 });
  const id = await openJob(sf, rows(2));
  await api(sf, 'PATCH', `/${id}`, { state: 'UploadComplete' });
  const done = await waitWhile(sf, id, ['UploadComplete', 'InProgress']);
  assert.equal(done.state, 'JobComplete');
  const limits = await fetch(`${sf.url}/services/data/v62.0/limits`, {
    headers: { authorization: `Bearer ${sf.credentials.accessToken}` },
  });
  assert.match(limits.headers.get('sforce-limit-info') ?? '', /^api-usage=\d+\/100000$/);
  const body = (await limits.json()) as Record<string, { Max: number; Remaining: number }>;
  assert.deepEqual(body.DailyBulkApiBatches, { Max: 1, Remaining: 0 });

  const second = await openJob(sf, rows(2));
  await api(sf, 'PATCH', `/${second}`, { state: 'UploadComplete' });
  const failed = await waitWhile(sf, second, ['UploadComplete', 'InProgress']);
  assert.equal(failed.state, 'Failed');
  assert.match(String(failed.errorMessage), /^ExceededQuota : /);
  assert.equal(
    (parse((await api(sf, 'GET', `/${second}/unprocessedrecords/`)).text, { columns: true }) as unknown[])
      .length,
    2,
  );
});

test('reset forgets every job', async (t) => {
  const sf = await start(t);
  const id = await openJob(sf, rows(1));
  assert.equal((await fetch(`${sf.url}/__sandbox/reset`, { method: 'POST' })).status, 204);
  assert.equal((await api(sf, 'GET', `/${id}`)).status, 404);
});
