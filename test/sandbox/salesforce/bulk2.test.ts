import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { registerBulkRoutes } from '../../../sandbox/salesforce/bulk/index.ts';
import { registerLimits } from '../../../sandbox/salesforce/limits/index.ts';
import { OAuthState } from '../../../sandbox/salesforce/oauth/index.ts';
import { Org } from '../../../sandbox/salesforce/org/index.ts';
import { createSandboxApp, listen } from '../../../sandbox/shared/index.ts';
import { waitFor } from '../../helpers/wait.ts';

type T = { after: (fn: () => Promise<void>) => void };

/** Org kernel + OAuth + limits + Bulk on a sandbox app: what Bulk 2.0 needs, nothing else. */
async function start(t: T, options: Record<string, unknown> = {}) {
  const core = createSandboxApp({
    name: 'sf-bulk2-test',
    renderFault: (_f, _r, reply) => reply.code(500).send(),
  });
  const org = new Org();
  const oauth = new OAuthState({ orgId: org.orgId, userId: org.adminUserId });
  const resets: (() => void)[] = [];
  const ctx = {
    org,
    oauth,
    realism: core.realism,
    accounting: core.accounting,
    options,
    onReset: (fn: () => void) => resets.push(fn),
  };
  registerLimits(core.app, ctx);
  registerBulkRoutes(core.app, ctx);
  const url = await listen(core.app);
  t.after(() => core.app.close());
  const auth = { authorization: `Bearer ${oauth.credentials.accessToken}` };
  const api = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${url}/services/data/v62.0/jobs/ingest${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': type } : {}) },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const json =
      /json/.test(res.headers.get('content-type') ?? '') && text !== ''
        ? (JSON.parse(text) as Record<string, unknown>)
        : null;
    return { status: res.status, text, json, type: res.headers.get('content-type') };
  };
  /** Create, upload, close, then poll until the job leaves the running states. */
  const run = async (job: Record<string, unknown>, csv: string) => {
    const created = await api('POST', '', job);
    assert.equal(created.status, 200, created.text);
    const id = String(created.json?.id);
    assert.equal((await api('PUT', `/${id}/batches`, csv, 'text/csv')).status, 201);
    assert.equal((await api('PATCH', `/${id}`, { state: 'UploadComplete' })).status, 200);
    let info = (await api('GET', `/${id}`)).json ?? {};
    await waitFor(
      `job ${id} to finish`,
      async () => {
        if (info.state !== 'UploadComplete' && info.state !== 'InProgress') return true;
        info = (await api('GET', `/${id}`)).json ?? {};
        return false;
      },
      { intervalMs: 0 },
    );
    return { id, info };
  };
  const results = async (id: string, kind: 'successfulResults' | 'failedResults' | 'unprocessedrecords') => {
    const r = await api('GET', `/${id}/${kind}/`);
    assert.equal(r.status, 200);
    assert.equal(r.type, 'text/csv');
    return { text: r.text, rows: parse(r.text, { columns: true }) as Record<string, string>[] };
  };
  return { url, org, core, api, run, results, auth };
}

test('insert job: real job info shapes, results per file with sf__ columns and original columns', async (t) => {
  const { api, run, results, org } = await start(t);
  const created = await api('POST', '', { object: 'Account', operation: 'insert', lineEnding: 'LF' });
  assert.equal(created.status, 200);
  const j = created.json ?? {};
  assert.match(String(j.id), /^750[A-Za-z0-9]{15}$/);
  assert.equal(j.state, 'Open');
  assert.equal(j.apiVersion, 62);
  assert.equal(j.jobType, 'V2Ingest');
  assert.equal(j.contentUrl, `services/data/v62.0/jobs/ingest/${j.id}/batches`);
  assert.equal(j.columnDelimiter, 'COMMA');
  assert.equal(j.concurrencyMode, 'Parallel');
  assert.match(String(j.createdDate), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
  assert.equal(j.createdById, org.adminUserId);
  assert.equal('numberRecordsProcessed' in j, false);

  const csv = 'Name,NumberOfEmployees,Custom_External_ID__c\nAcme,10,K-1\n,5,K-2\n"Quoted, Inc.",7,K-3\n';
  const { id, info } = await run({ object: 'Account', operation: 'insert' }, csv);
  assert.equal(info.state, 'JobComplete');
  assert.equal(info.numberRecordsProcessed, 3);
  assert.equal(info.numberRecordsFailed, 1);
  assert.equal(info.retries, 0);
  const ok = await results(id, 'successfulResults');
  assert.equal(
    ok.text.split('\n')[0],
    '"sf__Id","sf__Created","Name","NumberOfEmployees","Custom_External_ID__c"',
  );
  assert.deepEqual(
    ok.rows.map((r) => [r.Name, r.sf__Created, r.Custom_External_ID__c]),
    [
      ['Acme', 'true', 'K-1'],
      ['Quoted, Inc.', 'true', 'K-3'],
    ],
  );
  const stored = org.query(`SELECT Name, NumberOfEmployees FROM Account WHERE Id = '${ok.rows[0]?.sf__Id}'`)
    .records[0];
  assert.equal(stored?.Name, 'Acme');
  assert.equal(stored?.NumberOfEmployees, 10);
  const failed = await results(id, 'failedResults');
  assert.equal(
    failed.text.split('\n')[0],
    '"sf__Id","sf__Error","Name","NumberOfEmployees","Custom_External_ID__c"',
  );
  assert.equal(failed.rows.length, 1);
  assert.equal(failed.rows[0]?.sf__Id, '');
  assert.equal(
    failed.rows[0]?.sf__Error,
    'REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --',
  );
  assert.equal(failed.rows[0]?.Custom_External_ID__c, 'K-2');
  const unprocessed = await results(id, 'unprocessedrecords');
  assert.deepEqual(unprocessed.rows, []);
});

test('CSV conventions: #N/A sets null, empty leaves untouched, dates, booleans, relationship columns', async (t) => {
  const { run, results, org } = await start(t);
  const ins = await run(
    { object: 'Account', operation: 'insert' },
    'Name,External_Id__c,Phone,SLAExpirationDate__c\nParent Co,P-1,555-0100,2024-02-29\n',
  );
  const parentId = (await results(ins.id, 'successfulResults')).rows[0]?.sf__Id ?? '';
  assert.equal(
    org.query(`SELECT SLAExpirationDate__c FROM Account WHERE Id = '${parentId}'`).records[0]
      ?.SLAExpirationDate__c,
    '2024-02-29',
  );

  // Update: #N/A clears Phone, the empty cell keeps SLAExpirationDate__c.
  const upd = await run(
    { object: 'Account', operation: 'update' },
    `Id,Phone,SLAExpirationDate__c\n${parentId},#N/A,\n`,
  );
  assert.equal(upd.info.numberRecordsFailed, 0);
  const after = org.query(`SELECT Phone, SLAExpirationDate__c FROM Account WHERE Id = '${parentId}'`)
    .records[0];
  assert.equal(after?.Phone, null);
  assert.equal(after?.SLAExpirationDate__c, '2024-02-29');
  const updOk = await results(upd.id, 'successfulResults');
  assert.equal(updOk.rows[0]?.sf__Created, 'false');
  assert.equal(updOk.rows[0]?.sf__Id, parentId);

  // Contact with its Account named by external id, a boolean and a datetime.
  const c = await run(
    { object: 'Contact', operation: 'insert' },
    'LastName,Account.External_Id__c,checkbox_field__c,datetime_field__c\nNg,P-1,true,2024-05-01T10:00:00.000Z\nOrphan,NOPE,false,\n',
  );
  assert.equal(c.info.numberRecordsProcessed, 2);
  const contact = (await results(c.id, 'successfulResults')).rows[0];
  const rec = org.query(
    `SELECT AccountId, checkbox_field__c, datetime_field__c FROM Contact WHERE Id = '${contact?.sf__Id}'`,
  ).records[0];
  assert.equal(rec?.AccountId, parentId);
  assert.equal(rec?.checkbox_field__c, true);
  assert.equal(rec?.datetime_field__c, '2024-05-01T10:00:00.000+0000');
  const bad = (await results(c.id, 'failedResults')).rows[0];
  assert.match(
    bad?.sf__Error ?? '',
    /^INVALID_FIELD:Foreign key external ID: NOPE not found for field External_Id__c in entity Account:/,
  );
});

test('multi-select picklist values are joined with ;', async (t) => {
  const { run, results, org } = await start(t);
  org.addCustomField('Account', {
    name: 'Regions__c',
    type: 'multipicklist',
    label: 'Regions',
    picklistValues: ['EU', 'US', 'APAC'].map((v) => ({
      active: true,
      defaultValue: false,
      label: v,
      validFor: null,
      value: v,
    })),
  });
  const job = await run({ object: 'Account', operation: 'insert' }, 'Name,Regions__c\nGlobal,EU;APAC\n');
  const id = (await results(job.id, 'successfulResults')).rows[0]?.sf__Id;
  assert.equal(
    org.query(`SELECT Regions__c FROM Account WHERE Id = '${id}'`).records[0]?.Regions__c,
    'EU;APAC',
  );
});

test('upsert reports sf__Created true for inserts and false for updates; delete reports false', async (t) => {
  const { run, results, org } = await start(t);
  await run({ object: 'Account', operation: 'insert' }, 'Name,External_Id__c\nOld,U-1\n');
  const up = await run(
    { object: 'Account', operation: 'upsert', externalIdFieldName: 'External_Id__c' },
    'External_Id__c,Name\nU-1,Renamed\nU-2,Brand New\n',
  );
  const rows = (await results(up.id, 'successfulResults')).rows;
  assert.deepEqual(
    rows.map((r) => [r.External_Id__c, r.sf__Created]),
    [
      ['U-1', 'false'],
      ['U-2', 'true'],
    ],
  );
  assert.equal(
    org.query("SELECT Name FROM Account WHERE External_Id__c = 'U-1'").records[0]?.Name,
    'Renamed',
  );
  const del = await run(
    { object: 'Account', operation: 'delete' },
    `Id\n${rows[1]?.sf__Id}\n001000000000000AAA\n`,
  );
  const delOk = (await results(del.id, 'successfulResults')).rows;
  assert.deepEqual(
    delOk.map((r) => [r.sf__Id, r.sf__Created]),
    [[rows[1]?.sf__Id, 'false']],
  );
  const delFailed = (await results(del.id, 'failedResults')).rows;
  assert.equal(delFailed.length, 1);
  assert.equal(delFailed[0]?.sf__Id, '001000000000000AAA');
  assert.equal(org.query("SELECT Id FROM Account WHERE External_Id__c = 'U-2'").totalSize, 0);
});

test('an unknown column fails the whole job; every row is then unprocessed', async (t) => {
  const { run, results } = await start(t);
  const { id, info } = await run({ object: 'Account', operation: 'insert' }, 'Name,Bogus__c\nA,1\nB,2\n');
  assert.equal(info.state, 'Failed');
  assert.equal(info.errorMessage, 'InvalidBatch : Field name not found : Bogus__c');
  assert.equal(info.numberRecordsProcessed, 0);
  assert.equal((await results(id, 'successfulResults')).rows.length, 0);
  const un = await results(id, 'unprocessedrecords');
  assert.equal(un.text, '"Name","Bogus__c"\n"A","1"\n"B","2"\n');
});

test('job state machine: transitions, uploads only while Open, deletes, unknown jobs', async (t) => {
  const { api } = await start(t);
  const id = String((await api('POST', '', { object: 'Account', operation: 'insert' })).json?.id);
  const badMove = await api('PATCH', `/${id}`, { state: 'JobComplete' });
  assert.equal(badMove.status, 400);
  assert.deepEqual(JSON.parse(badMove.text), [
    {
      errorCode: 'INVALIDJOBSTATE',
      message: 'InvalidJobState : Invalid state transition from Open to JobComplete',
    },
  ]);
  assert.equal((await api('DELETE', `/${id}`)).status, 400); // an Open job cannot be deleted
  const aborted = await api('PATCH', `/${id}`, { state: 'Aborted' });
  assert.equal(aborted.json?.state, 'Aborted');
  const late = await api('PUT', `/${id}/batches`, 'Name\nX\n', 'text/csv');
  assert.equal(late.status, 409);
  assert.equal(JSON.parse(late.text)[0].errorCode, 'INVALIDJOBSTATE');
  assert.equal((await api('PATCH', `/${id}`, { state: 'UploadComplete' })).status, 400);
  assert.equal((await api('DELETE', `/${id}`)).status, 204);
  const gone = await api('GET', `/${id}`);
  assert.equal(gone.status, 404);
  assert.deepEqual(JSON.parse(gone.text), [
    { errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' },
  ]);

  // Two uploads are taken, but the close is refused with Salesforce's own message.
  const twice = String((await api('POST', '', { object: 'Account', operation: 'insert' })).json?.id);
  assert.equal((await api('PUT', `/${twice}/batches`, 'Name\nA\n', 'text/csv')).status, 201);
  assert.equal((await api('PUT', `/${twice}/batches`, 'Name\nB\n', 'text/csv')).status, 201);
  const refused = await api('PATCH', `/${twice}`, { state: 'UploadComplete' });
  assert.equal(refused.status, 400);
  assert.equal(JSON.parse(refused.text)[0].errorCode, 'INVALIDJOB');
  assert.match(JSON.parse(refused.text)[0].message, /^Found multipe contents for job: <750\w{12}>/);

  // Closing a job without data fails it.
  const empty = String((await api('POST', '', { object: 'Account', operation: 'insert' })).json?.id);
  const closed = await api('PATCH', `/${empty}`, { state: 'UploadComplete' });
  assert.equal(closed.json?.state, 'Failed');
});

test('job creation errors', async (t) => {
  const { api } = await start(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ object: 'Nope__c', operation: 'insert' }, 'INVALIDJOB'],
    [{ object: 'Account', operation: 'merge' }, 'JSON_PARSER_ERROR'],
    [{ object: 'Account', operation: 'insert', columnDelimiter: 'COLON' }, 'JSON_PARSER_ERROR'],
    [{ object: 'Account', operation: 'upsert' }, 'INVALIDJOB'],
    [{ object: 'Account', operation: 'upsert', externalIdFieldName: 'Name' }, 'INVALIDJOB'],
  ];
  for (const [body, code] of cases) {
    const r = await api('POST', '', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(JSON.parse(r.text)[0].errorCode, code);
  }
});

test('other delimiters and CRLF line endings, in upload and in results', async (t) => {
  const { run, api } = await start(t);
  const { id, info } = await run(
    { object: 'Account', operation: 'insert', columnDelimiter: 'SEMICOLON', lineEnding: 'CRLF' },
    'Name;Description\r\nSemi;"a;b"\r\n',
  );
  assert.equal(info.numberRecordsFailed, 0);
  const r = await api('GET', `/${id}/successfulResults`);
  assert.match(r.text, /^"sf__Id";"sf__Created";"Name";"Description"\r\n"001[^"]+";"true";"Semi";"a;b"\r\n$/);
});

test('result files can be shuffled (seeded) and still map back by a key column', async (t) => {
  const { run, results } = await start(t, { bulkResultOrder: 'shuffled' });
  const rows = Array.from({ length: 50 }, (_v, i) => `Row ${i},K-${i}`);
  const { id } = await run(
    { object: 'Account', operation: 'insert' },
    `Name,Custom_External_ID__c\n${rows.join('\n')}\n`,
  );
  const ok = (await results(id, 'successfulResults')).rows;
  assert.equal(ok.length, 50);
  const keys = ok.map((r) => r.Custom_External_ID__c);
  assert.notDeepEqual(
    keys,
    rows.map((_r, i) => `K-${i}`),
  );
  assert.deepEqual([...keys].sort(), rows.map((_r, i) => `K-${i}`).sort());
  for (const r of ok) assert.equal(r.Name, `Row ${r.Custom_External_ID__c?.slice(2)}`);
});

test('listing jobs and call accounting', async (t) => {
  const { api, run, core } = await start(t);
  await run({ object: 'Account', operation: 'insert' }, 'Name\nListed\n');
  const list = await api('GET', '');
  assert.equal(list.json?.done, true);
  assert.equal(list.json?.nextRecordsUrl, null);
  const records = list.json?.records as Record<string, unknown>[];
  assert.equal(records.length, 1);
  assert.equal(records[0]?.state, 'JobComplete');
  assert.equal(core.accounting.count('bulk2.createJob'), 1);
  assert.equal(core.accounting.count('bulk2.upload'), 1);
  assert.equal(core.accounting.count('bulk2.close'), 1);
  assert.ok(core.accounting.count('bulk2.getJob') >= 1);
});

test('query jobs: checked at creation, CSV pages with Sforce-Locator until the literal null', async (t) => {
  const { url, org, auth } = await start(t);
  org.insert('Account', [{ Name: 'Q "quoted"' }, { Name: 'Q plain' }, { Name: 'Q third' }]);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/services/data/v62.0/jobs/query${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const bad = await call('POST', '', { operation: 'query', query: 'SELECT Nope FROM Account' });
  assert.equal(bad.status, 400);
  assert.equal(JSON.parse(bad.text)[0].errorCode, 'INVALID_FIELD');
  const created = await call('POST', '', {
    operation: 'query',
    query: "SELECT Name, Phone FROM Account WHERE Name LIKE 'Q %' ORDER BY Name",
  });
  const job = JSON.parse(created.text) as Record<string, unknown>;
  assert.equal(job.state, 'UploadComplete');
  assert.equal(job.jobType, 'V2Query');
  let state = job.state;
  await waitFor(
    'the query job to complete',
    async () => {
      if (state === 'JobComplete') return true;
      state = (JSON.parse((await call('GET', `/${job.id}`)).text) as { state: string }).state;
      return false;
    },
    { intervalMs: 0 },
  );
  const first = await call('GET', `/${job.id}/results?maxRecords=2`);
  assert.equal(first.headers.get('content-type'), 'text/csv');
  assert.equal(first.headers.get('sforce-numberofrecords'), '2');
  const locator = first.headers.get('sforce-locator') ?? '';
  assert.notEqual(locator, 'null');
  assert.equal(first.text, '"Name","Phone"\n"Q ""quoted""",""\n"Q plain",""\n');
  const second = await call('GET', `/${job.id}/results?maxRecords=2&locator=${locator}`);
  assert.equal(second.headers.get('sforce-locator'), 'null');
  assert.equal(second.text, '"Name","Phone"\n"Q third",""\n');
  assert.equal((await call('DELETE', `/${job.id}`)).status, 204);
});
