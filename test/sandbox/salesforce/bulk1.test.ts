import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { type SalesforceSandbox, startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { POLL_DEADLINE_MS } from '../../helpers/wait.ts';

type T = { after: (fn: () => Promise<void>) => void };

async function start(t: T) {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  return sf;
}

async function call(
  sf: SalesforceSandbox,
  method: string,
  path: string,
  body?: string,
  type?: string,
  session?: string,
) {
  const res = await fetch(`${sf.url}/services/async/62.0${path}`, {
    method,
    headers: {
      'x-sfdc-session': session ?? sf.credentials.accessToken,
      ...(type !== undefined ? { 'content-type': type } : {}),
    },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const xmlJob = (fields: Record<string, string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><jobInfo xmlns="http://www.force.com/2009/06/asyncapi/dataload">${Object.entries(
    fields,
  )
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</jobInfo>`;
const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

async function waitBatch(sf: SalesforceSandbox, jobId: string, batchId: string, json = false) {
  for (const deadline = Date.now() + POLL_DEADLINE_MS; Date.now() < deadline; ) {
    const r = await call(
      sf,
      'GET',
      `/job/${jobId}/batch/${batchId}`,
      undefined,
      json ? 'application/json' : undefined,
    );
    const state = json ? (JSON.parse(r.text) as { state: string }).state : tag(r.text, 'state');
    if (state !== 'Queued' && state !== 'InProgress') return r;
    await new Promise((res) => setImmediate(res));
  }
  throw new Error(`gave up waiting for batch ${batchId} to finish`);
}

test('XML job: jobInfo in the asyncapi namespace, CSV batch, batch info, CSV results in request order', async (t) => {
  const sf = await start(t);
  const created = await call(
    sf,
    'POST',
    '/job',
    xmlJob({ operation: 'insert', object: 'Account', contentType: 'CSV' }),
    'application/xml; charset=UTF-8',
  );
  assert.equal(created.status, 201);
  assert.equal(created.type, 'application/xml');
  assert.match(
    created.text,
    /^<\?xml version="1.0" encoding="UTF-8"\?><jobInfo\s+xmlns="http:\/\/www.force.com\/2009\/06\/asyncapi\/dataload">/,
  );
  const jobId = tag(created.text, 'id') ?? '';
  assert.match(jobId, /^750/);
  assert.equal(tag(created.text, 'state'), 'Open');
  assert.equal(tag(created.text, 'apiVersion'), '62.0');
  assert.equal(tag(created.text, 'concurrencyMode'), 'Parallel');
  const order = [
    'id',
    'operation',
    'object',
    'createdById',
    'createdDate',
    'systemModstamp',
    'state',
    'concurrencyMode',
    'contentType',
    'numberBatchesQueued',
  ];
  const positions = order.map((k) => created.text.indexOf(`<${k}>`));
  assert.deepEqual(
    [...positions].sort((a, b) => a - b),
    positions,
  );

  const batch = await call(
    sf,
    'POST',
    `/job/${jobId}/batch`,
    'Name,Phone\nFirst,#N/A\n,555\nThird,556\n',
    'text/csv',
  );
  assert.equal(batch.status, 201);
  const batchId = tag(batch.text, 'id') ?? '';
  assert.match(batchId, /^751/);
  assert.equal(tag(batch.text, 'jobId'), jobId);
  const done = await waitBatch(sf, jobId, batchId);
  assert.equal(tag(done.text, 'state'), 'Completed');
  assert.equal(tag(done.text, 'numberRecordsProcessed'), '3');
  assert.equal(tag(done.text, 'numberRecordsFailed'), '1');

  const result = await call(sf, 'GET', `/job/${jobId}/batch/${batchId}/result`);
  assert.equal(result.type, 'text/csv');
  assert.equal(result.text.split('\n')[0], '"Id","Success","Created","Error"');
  const rows = parse(result.text, { columns: true }) as Record<string, string>[];
  assert.deepEqual(
    rows.map((r) => [r.Success, r.Created]),
    [
      ['true', 'true'],
      ['false', 'false'],
      ['true', 'true'],
    ],
  );
  assert.equal(rows[1]?.Id, '');
  assert.equal(rows[1]?.Error, 'REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --');

  const list = await call(sf, 'GET', `/job/${jobId}/batch`);
  assert.match(
    list.text,
    /<batchInfoList\s+xmlns="http:\/\/www.force.com\/2009\/06\/asyncapi\/dataload">\s*<batchInfo>/,
  );
  const closed = await call(sf, 'POST', `/job/${jobId}`, xmlJob({ state: 'Closed' }), 'application/xml');
  assert.equal(tag(closed.text, 'state'), 'Closed');
  assert.equal(tag(closed.text, 'numberBatchesCompleted'), '1');
  const late = await call(sf, 'POST', `/job/${jobId}/batch`, 'Name\nLate\n', 'text/csv');
  assert.equal(late.status, 400);
  assert.equal(tag(late.text, 'exceptionCode'), 'InvalidJobState');
});

test('JSON job: JSON in, JSON out, results as [{success, created, id, errors}] in request order', async (t) => {
  const sf = await start(t);
  const created = await call(
    sf,
    'POST',
    '/job',
    JSON.stringify({ operation: 'insert', object: 'Contact', contentType: 'JSON' }),
    'application/json',
  );
  assert.equal(created.status, 201);
  const job = JSON.parse(created.text) as Record<string, unknown>;
  assert.equal(job.contentType, 'JSON');
  assert.equal(job.apiVersion, 62);
  assert.equal(job.numberBatchesTotal, 0);
  const batch = await call(
    sf,
    'POST',
    `/job/${job.id}/batch`,
    JSON.stringify([{ LastName: 'Ng' }, { FirstName: 'No last name' }]),
    'application/json',
  );
  const batchId = (JSON.parse(batch.text) as { id: string }).id;
  await waitBatch(sf, String(job.id), batchId, true);
  const result = await call(sf, 'GET', `/job/${job.id}/batch/${batchId}/result`);
  assert.match(result.type ?? '', /^application\/json/);
  const rows = JSON.parse(result.text) as {
    success: boolean;
    created: boolean;
    id: string | null;
    errors: { statusCode: string }[];
  }[];
  assert.equal(rows.length, 2);
  assert.equal(rows[0]?.success, true);
  assert.match(rows[0]?.id ?? '', /^003/);
  assert.deepEqual(
    [rows[1]?.success, rows[1]?.id, rows[1]?.errors[0]?.statusCode],
    [false, null, 'REQUIRED_FIELD_MISSING'],
  );
});

test('an invalid session is 400 InvalidSessionId (what jsforce refreshes on)', async (t) => {
  const sf = await start(t);
  const r = await call(
    sf,
    'POST',
    '/job',
    xmlJob({ operation: 'insert', object: 'Account' }),
    'application/xml',
    'bogus',
  );
  assert.equal(r.status, 400);
  assert.match(r.text, /<exceptionCode>InvalidSessionId<\/exceptionCode>/);
  assert.equal(tag(r.text, 'exceptionMessage'), 'Invalid session id');
  const j = await call(sf, 'POST', '/job', '{}', 'application/json', 'bogus');
  assert.deepEqual(JSON.parse(j.text), {
    exceptionCode: 'InvalidSessionId',
    exceptionMessage: 'Invalid session id',
  });
});

test('job and batch errors: unknown object, upsert without external id, unknown column, oversized batch, bad job id', async (t) => {
  const sf = await start(t);
  const create = (f: Record<string, string>) => call(sf, 'POST', '/job', xmlJob(f), 'application/xml');
  assert.equal(
    tag((await create({ operation: 'insert', object: 'Nope__c' })).text, 'exceptionCode'),
    'InvalidJob',
  );
  const noExt = await create({ operation: 'upsert', object: 'Account' });
  assert.equal(
    tag(noExt.text, 'exceptionMessage'),
    'External ID was blank for Account. An External ID must be specified for upsert.',
  );
  assert.equal(tag((await call(sf, 'GET', '/job/750000000000000AAA')).text, 'exceptionCode'), 'InvalidJob');

  const jobId =
    tag((await create({ operation: 'insert', object: 'Account', contentType: 'CSV' })).text, 'id') ?? '';
  const badCol = await call(sf, 'POST', `/job/${jobId}/batch`, 'Name,Bogus__c\nA,1\n', 'text/csv');
  const failed = await waitBatch(sf, jobId, tag(badCol.text, 'id') ?? '');
  assert.equal(tag(failed.text, 'state'), 'Failed');
  assert.equal(tag(failed.text, 'stateMessage'), 'InvalidBatch : Field name not found : Bogus__c');
  const big = `Name\n${Array.from({ length: 10_001 }, (_v, i) => `N${i}`).join('\n')}\n`;
  const tooBig = await call(sf, 'POST', `/job/${jobId}/batch`, big, 'text/csv');
  const bigDone = await waitBatch(sf, jobId, tag(tooBig.text, 'id') ?? '');
  assert.equal(tag(bigDone.text, 'state'), 'Failed');
  assert.match(tag(bigDone.text, 'stateMessage') ?? '', /Exceeded number of records : 10001/);
  const empty = await call(sf, 'POST', `/job/${jobId}/batch`, '', 'text/csv');
  assert.equal(tag(empty.text, 'exceptionCode'), 'ClientInputError');
  const result = await call(sf, 'GET', `/job/${jobId}/batch/${tag(badCol.text, 'id')}/result`);
  assert.equal(tag(result.text, 'exceptionCode'), 'InvalidBatch');
});

test('upsert through Bulk 1.0 reports created true/false per row', async (t) => {
  const sf = await start(t);
  sf.org.insert('Account', [{ Name: 'Existing', External_Id__c: 'E-1' }]);
  const jobId =
    tag(
      (
        await call(
          sf,
          'POST',
          '/job',
          xmlJob({
            operation: 'upsert',
            object: 'Account',
            externalIdFieldName: 'External_Id__c',
            contentType: 'CSV',
          }),
          'application/xml',
        )
      ).text,
      'id',
    ) ?? '';
  const batchId =
    tag(
      (
        await call(
          sf,
          'POST',
          `/job/${jobId}/batch`,
          'External_Id__c,Name\nE-1,Updated\nE-2,Inserted\n',
          'text/csv',
        )
      ).text,
      'id',
    ) ?? '';
  await waitBatch(sf, jobId, batchId);
  const rows = parse((await call(sf, 'GET', `/job/${jobId}/batch/${batchId}/result`)).text, {
    columns: true,
  }) as Record<string, string>[];
  assert.deepEqual(
    rows.map((r) => [r.Success, r.Created]),
    [
      ['true', 'false'],
      ['true', 'true'],
    ],
  );
});

test('a lock fault on adding a batch fails its rows with UNABLE_TO_LOCK_ROW; batches run out at the daily allocation', async (t) => {
  const sf = await startSalesforceSandbox({ port: 0, dailyBulkApiBatches: 1 });
  t.after(() => sf.close());
  sf.realism.script([{ kind: 'lock', match: 'bulk1.addBatch' }]);
  const jobId =
    tag(
      (
        await call(
          sf,
          'POST',
          '/job',
          xmlJob({ operation: 'insert', object: 'Account', contentType: 'CSV' }),
          'application/xml',
        )
      ).text,
      'id',
    ) ?? '';
  const batchId =
    tag((await call(sf, 'POST', `/job/${jobId}/batch`, 'Name\nLocked\n', 'text/csv')).text, 'id') ?? '';
  await waitBatch(sf, jobId, batchId);
  const rows = parse((await call(sf, 'GET', `/job/${jobId}/batch/${batchId}/result`)).text, {
    columns: true,
  }) as Record<string, string>[];
  assert.equal(rows[0]?.Success, 'false');
  assert.match(rows[0]?.Error ?? '', /^UNABLE_TO_LOCK_ROW:/);
  const refused = await call(sf, 'POST', `/job/${jobId}/batch`, 'Name\nOne too many\n', 'text/csv');
  assert.equal(refused.status, 400);
  assert.equal(tag(refused.text, 'exceptionCode'), 'ExceededQuota');
});
