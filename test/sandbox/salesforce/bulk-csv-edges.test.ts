// CSV edge cases of Bulk API 2.0 and Bulk API 1.0 ingest, each as the Bulk API guides describe it
// (where a guide is silent, the test says what the sandbox does and why). Plain HTTP throughout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';
import { waitFor } from '../../helpers/wait.ts';

type T = { after: (fn: () => Promise<void>) => void };
type Json = Record<string, unknown>;

async function start(t: T) {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  const auth = { authorization: `Bearer ${sf.credentials.accessToken}` };

  const rest = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sf.url}/services/data/v62.0${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, text, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };

  const ingest = async (method: string, path: string, body?: string, type = 'application/json') => {
    const res = await fetch(`${sf.url}/services/data/v62.0/jobs/ingest${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': type } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '') && text !== '' ? JSON.parse(text) : null;
    return { status: res.status, text, json: json as Json | Json[] | null };
  };

  const jobInfo = async (id: string) => (await ingest('GET', `/${id}`)).json as Json;

  /** Creates a job; uploads `csv` unless it is null; closes; waits until it stops running. */
  const run = async (job: Json, csv: string | null) => {
    const created = await ingest('POST', '', JSON.stringify(job));
    assert.equal(created.status, 200, created.text);
    const id = String((created.json as Json).id);
    if (csv !== null) {
      const put = await ingest('PUT', `/${id}/batches`, csv, 'text/csv');
      assert.equal(put.status, 201, put.text);
    }
    const closed = await ingest('PATCH', `/${id}`, JSON.stringify({ state: 'UploadComplete' }));
    assert.equal(closed.status, 200, closed.text);
    let info = await jobInfo(id);
    await waitFor(`job ${id} to finish`, async () => {
      if (info.state !== 'UploadComplete' && info.state !== 'InProgress') return true;
      info = await jobInfo(id);
      return false;
    });
    return { id, info };
  };

  const results = async (id: string, kind: 'successfulResults' | 'failedResults', delimiter = ',') => {
    const r = await ingest('GET', `/${id}/${kind}/`);
    assert.equal(r.status, 200);
    return parse(r.text, { columns: true, delimiter }) as Record<string, string>[];
  };

  const soql = async (q: string) => {
    const r = await rest('GET', `/query?q=${encodeURIComponent(q)}`);
    assert.equal(r.status, 200, r.text);
    return (r.json as { records: Json[] }).records;
  };

  return { sf, rest, ingest, run, results, soql, jobInfo };
}

test('insert: an empty cell under a field that is not createable is ignored; a value there fails the row', async (t) => {
  const { run, results, soql } = await start(t);
  // The guides: an empty cell sets nothing (to null a field takes #N/A). They say nothing of read-only
  // columns; an empty cell there sets nothing either, so it cannot be an attempt to write the field,
  // while a value is, and fails as the record APIs fail it (INVALID_FIELD_FOR_INSERT_UPDATE).
  // An export's columns (Id, CreatedDate, a system field) loaded back: empty cells set nothing.
  const { id, info } = await run(
    { object: 'Account', operation: 'insert' },
    'Id,Name,CreatedDate,LastModifiedById\n,Edge Empty,,\n,Edge Value,2024-01-01T00:00:00Z,\n',
  );
  assert.equal(info.state, 'JobComplete');
  assert.equal(info.numberRecordsProcessed, 2);
  assert.equal(info.numberRecordsFailed, 1);
  const ok = await results(id, 'successfulResults');
  assert.deepEqual(
    ok.map((r) => [r.Name, r.sf__Created]),
    [['Edge Empty', 'true']],
  );
  const failed = await results(id, 'failedResults');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]?.Name, 'Edge Value');
  assert.match(
    failed[0]?.sf__Error ?? '',
    /^INVALID_FIELD_FOR_INSERT_UPDATE:Unable to create\/update fields: CreatedDate\..*:CreatedDate --$/,
  );
  assert.equal((await soql("SELECT Id FROM Account WHERE Name LIKE 'Edge %'")).length, 1);
});

test('update: an empty cell under a field that is not updateable is ignored; a value or #N/A there fails the row', async (t) => {
  const { run, results, rest } = await start(t);
  // TaskSubtype is createable but not updateable.
  const seeded = await run(
    { object: 'Task', operation: 'insert' },
    'Subject,Status,Priority,TaskSubtype\nCall back,Not Started,Normal,Call\nEmail,Not Started,Normal,Email\nThird,Not Started,Normal,Task\n',
  );
  assert.equal(seeded.info.numberRecordsFailed, 0);
  const ids = Object.fromEntries(
    (await results(seeded.id, 'successfulResults')).map((r) => [r.Subject, r.sf__Id]),
  );
  const { id, info } = await run(
    { object: 'Task', operation: 'update' },
    `Id,Subject,TaskSubtype\n${ids['Call back']},Called,\n${ids.Email},Emailed,Call\n${ids.Third},Third done,#N/A\n`,
  );
  assert.equal(info.numberRecordsProcessed, 3);
  assert.equal(info.numberRecordsFailed, 2);
  const ok = await results(id, 'successfulResults');
  assert.deepEqual(
    ok.map((r) => [r.sf__Id, r.sf__Created]),
    [[ids['Call back'], 'false']],
  );
  const failed = await results(id, 'failedResults');
  assert.equal(failed.length, 2);
  for (const f of failed) {
    assert.match(f.sf__Error ?? '', /^INVALID_FIELD_FOR_INSERT_UPDATE:.*TaskSubtype/);
    // A failed update row keeps its Id in sf__Id.
    assert.equal(f.sf__Id, f.Id);
  }
  const task = (await rest('GET', `/sobjects/Task/${ids['Call back']}`)).json as Json;
  assert.equal(task.Subject, 'Called');
  assert.equal(task.TaskSubtype, 'Call');
  const untouched = (await rest('GET', `/sobjects/Task/${ids.Email}`)).json as Json;
  assert.equal(untouched.Subject, 'Email');
});

test('update: an empty cell leaves the field as it is; #N/A sets it to null', async (t) => {
  const { run, rest } = await start(t);
  const created = await rest('POST', '/sobjects/Account', {
    Name: 'Null Me',
    Description: 'keep',
    Phone: '555-0100',
    NumberOfEmployees: 12,
  });
  assert.equal(created.status, 201, created.text);
  const accountId = (created.json as Json).id as string;
  const { info } = await run(
    { object: 'Account', operation: 'update' },
    `Id,Description,Phone,NumberOfEmployees\n${accountId},,#N/A,#N/A\n`,
  );
  assert.equal(info.numberRecordsFailed, 0);
  const rec = (await rest('GET', `/sobjects/Account/${accountId}`)).json as Json;
  assert.equal(rec.Description, 'keep');
  assert.equal(rec.Phone, null);
  assert.equal(rec.NumberOfEmployees, null);
});

test('empty uploads: zero bytes complete with no records, a job closed without data fails, a header alone completes', async (t) => {
  const { ingest, run, results } = await start(t);
  // The guides do not document these answers. An empty upload is accepted and its job completes
  // with nothing processed, for update and delete as for insert: jsforce's own suite asserts it
  // (`loadAndWaitForResults` with `input: []`), and sync tools send it when nothing changed. A job
  // closed with nothing uploaded fails (InvalidBatch); a header alone is a file of no records.
  for (const operation of ['insert', 'update', 'delete'] as const) {
    const zero = await run({ object: 'Account', operation }, '');
    assert.equal(zero.info.state, 'JobComplete', `${operation}: ${JSON.stringify(zero.info)}`);
    assert.equal(zero.info.numberRecordsProcessed, 0);
    assert.equal(zero.info.numberRecordsFailed, 0);
    assert.deepEqual(await results(zero.id, 'successfulResults'), []);
    assert.deepEqual(await results(zero.id, 'failedResults'), []);
  }

  const none = await run({ object: 'Account', operation: 'insert' }, null);
  assert.equal(none.info.state, 'Failed');
  assert.match(String(none.info.errorMessage), /^InvalidBatch : /);

  const headerOnly = await run({ object: 'Account', operation: 'insert' }, 'Name,Description\n');
  assert.equal(headerOnly.info.state, 'JobComplete');
  assert.equal(headerOnly.info.numberRecordsProcessed, 0);
  assert.equal(headerOnly.info.numberRecordsFailed, 0);
  const ok = await ingest('GET', `/${headerOnly.id}/successfulResults/`);
  assert.equal(ok.text.split('\n')[0], '"sf__Id","sf__Created","Name","Description"');
  assert.deepEqual(await results(headerOnly.id, 'successfulResults'), []);
});

test('upsert: a blank external id fails its row with MISSING_ARGUMENT; on Id a blank key inserts', async (t) => {
  const { run, results, soql } = await start(t);
  // Documented: to force a create, upsert on Id with no Id. A blank custom external id matches
  // nothing and names no record to create by, so the row fails as the API's upsert fails it.
  const ext = await run(
    { object: 'Account', operation: 'upsert', externalIdFieldName: 'External_Id__c' },
    'External_Id__c,Name\nK-1,Keyed\n,Unkeyed\n',
  );
  assert.equal(ext.info.numberRecordsProcessed, 2);
  assert.equal(ext.info.numberRecordsFailed, 1);
  const failed = await results(ext.id, 'failedResults');
  assert.equal(failed[0]?.Name, 'Unkeyed');
  assert.match(failed[0]?.sf__Error ?? '', /^MISSING_ARGUMENT:External_Id__c not specified:/);
  assert.deepEqual(
    (await results(ext.id, 'successfulResults')).map((r) => [r.Name, r.sf__Created]),
    [['Keyed', 'true']],
  );

  // With Id as the key, a row without an Id creates the record; one with an Id updates it.
  const keyed = (await results(ext.id, 'successfulResults'))[0]?.sf__Id;
  const byId = await run(
    { object: 'Account', operation: 'upsert', externalIdFieldName: 'Id' },
    `Id,Name\n${keyed},Keyed renamed\n,Fresh by Id\n`,
  );
  assert.equal(byId.info.numberRecordsFailed, 0);
  const ok = await results(byId.id, 'successfulResults');
  assert.deepEqual(ok.map((r) => [r.Name, r.sf__Created]).sort(), [
    ['Fresh by Id', 'true'],
    ['Keyed renamed', 'false'],
  ]);
  assert.equal((await soql("SELECT Id FROM Account WHERE Name = 'Fresh by Id'")).length, 1);
});

test('upsert on Id: a well-formed Id of no record fails its row and creates nothing, as a deleted one does', async (t) => {
  const { run, results, soql, rest } = await start(t);
  // An Id is never chosen by the record's creator: Salesforce creates only when the Id is null (the
  // REST guide: "set the name of the external ID field to Id and the external ID to null"). A row
  // naming an Id is an update of that record, and fails as one when there is none.
  const gone = (await rest('POST', '/sobjects/Account', { Name: 'Soon deleted' })).json as Json;
  assert.equal((await rest('DELETE', `/sobjects/Account/${gone.id}`)).status, 204);
  const absent = '001000000000000AAA';
  const contactId = ((await soql('SELECT Id FROM Contact LIMIT 1'))[0] as Json).Id;
  const job = await run(
    { object: 'Account', operation: 'upsert', externalIdFieldName: 'Id' },
    `Id,Name\n${absent},Absent\n${gone.id},Deleted\n${contactId},Wrong object\nnot-an-id,Malformed\n,Created\n`,
  );
  assert.equal(job.info.state, 'JobComplete');
  assert.equal(job.info.numberRecordsProcessed, 5);
  assert.equal(job.info.numberRecordsFailed, 4);
  const failed = await results(job.id, 'failedResults');
  const byName = new Map(failed.map((r) => [r.Name, r]));
  assert.match(byName.get('Absent')?.sf__Error ?? '', /^INVALID_CROSS_REFERENCE_KEY:/);
  assert.equal(byName.get('Absent')?.sf__Id, absent);
  assert.match(byName.get('Deleted')?.sf__Error ?? '', /^ENTITY_IS_DELETED:/);
  assert.match(byName.get('Wrong object')?.sf__Error ?? '', /^MALFORMED_ID:/);
  assert.match(byName.get('Malformed')?.sf__Error ?? '', /^MALFORMED_ID:/);
  assert.deepEqual(
    (await results(job.id, 'successfulResults')).map((r) => [r.Name, r.sf__Created]),
    [['Created', 'true']],
  );
  const made = await soql(
    "SELECT Name FROM Account WHERE Name IN ('Absent', 'Deleted', 'Wrong object', 'Malformed', 'Created')",
  );
  assert.deepEqual(
    made.map((r) => r.Name),
    ['Created'],
  );
});

test('every column delimiter and both line endings load, quoted values keep delimiters, quotes and newlines', async (t) => {
  const { run, results, soql } = await start(t);
  const delimiters = { COMMA: ',', TAB: '\t', SEMICOLON: ';', PIPE: '|', CARET: '^', BACKQUOTE: '`' };
  for (const [name, d] of Object.entries(delimiters)) {
    for (const [lineEnding, eol] of [
      ['LF', '\n'],
      ['CRLF', '\r\n'],
    ] as const) {
      const label = `${name}-${lineEnding}`;
      // The description holds the delimiter, a doubled quote and a line break (CRLF inside a quoted
      // value of an LF file is data too).
      const description = `a${d}b "q"${eol}second line`;
      const csv = [
        ['Name', 'Description'].join(d),
        [label, `"${description.replaceAll('"', '""')}"`].join(d),
        [`${label} plain`, 'x'].join(d),
      ].join(eol);
      const { id, info } = await run(
        { object: 'Account', operation: 'insert', columnDelimiter: name, lineEnding },
        `${csv}${eol}`,
      );
      assert.equal(info.state, 'JobComplete', `${label}: ${String(info.errorMessage)}`);
      assert.equal(info.numberRecordsProcessed, 2, label);
      assert.equal(info.numberRecordsFailed, 0, label);
      const ok = await results(id, 'successfulResults', d);
      assert.equal(ok.length, 2, label);
      const rows = await soql(`SELECT Description FROM Account WHERE Name = '${label}'`);
      assert.equal(rows[0]?.Description, description, label);
    }
  }
});

test('a file whose line endings do not match the job fails the job with ClientInputError', async (t) => {
  // The guide: the job's lineEnding must match the file's. Salesforce's answer to a mismatch, either
  // way, is a failed job with this ClientInputError.
  const { run, soql, ingest } = await start(t);
  const crlfInLf = await run({ object: 'Account', operation: 'insert' }, 'Name\r\nMismatch A\r\n');
  assert.equal(crlfInLf.info.state, 'Failed');
  assert.equal(
    crlfInLf.info.errorMessage,
    'ClientInputError : LineEnding is invalid on user data. Current LineEnding setting is LF',
  );
  const lfInCrlf = await run(
    { object: 'Account', operation: 'insert', lineEnding: 'CRLF' },
    'Name\nMismatch B\n',
  );
  assert.equal(lfInCrlf.info.state, 'Failed');
  assert.equal(
    lfInCrlf.info.errorMessage,
    'ClientInputError : LineEnding is invalid on user data. Current LineEnding setting is CRLF',
  );
  assert.equal(lfInCrlf.info.numberRecordsProcessed, 0);
  // Nothing was processed: the file's rows come back as unprocessed records.
  const un = await ingest('GET', `/${lfInCrlf.id}/unprocessedrecords/`);
  assert.equal(un.status, 200);
  assert.deepEqual(parse(un.text, { columns: true }), [{ Name: 'Mismatch B' }]);
  assert.equal((await soql("SELECT Id FROM Account WHERE Name LIKE 'Mismatch%'")).length, 0);
});

test('Bulk API 1.0 CSV batches follow the same cell rules: empty ignored, #N/A nulls, blank Id upsert inserts', async (t) => {
  const { sf, rest } = await start(t);
  const call = async (method: string, path: string, body?: string, type?: string) => {
    const res = await fetch(`${sf.url}/services/async/62.0${path}`, {
      method,
      headers: {
        'x-sfdc-session': sf.credentials.accessToken,
        ...(type !== undefined ? { 'content-type': type } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    return res.text();
  };
  const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
  const batch = async (operation: string, csv: string, extra = '') => {
    const job = await call(
      'POST',
      '/job',
      `<?xml version="1.0" encoding="UTF-8"?><jobInfo xmlns="http://www.force.com/2009/06/asyncapi/dataload"><operation>${operation}</operation><object>Account</object>${extra}<contentType>CSV</contentType></jobInfo>`,
      'application/xml',
    );
    const jobId = tag(job, 'id') ?? '';
    const b = tag(await call('POST', `/job/${jobId}/batch`, csv, 'text/csv'), 'id') ?? '';
    let info = '';
    await waitFor(`batch ${b}`, async () => {
      info = await call('GET', `/job/${jobId}/batch/${b}`);
      return !['Queued', 'InProgress'].includes(tag(info, 'state') ?? '');
    });
    assert.equal(tag(info, 'state'), 'Completed', info);
    const out = parse(await call('GET', `/job/${jobId}/batch/${b}/result`), { columns: true });
    return out as Record<string, string>[];
  };

  const inserted = await batch('insert', 'Id,Name,Description,CreatedDate\n,Classic,first,\n');
  assert.equal(inserted[0]?.Success, 'true', JSON.stringify(inserted));
  const accountId = inserted[0]?.Id ?? '';
  const updated = await batch('update', `Id,Name,Description\n${accountId},,#N/A\n`);
  assert.equal(updated[0]?.Success, 'true', JSON.stringify(updated));
  const rec = (await rest('GET', `/sobjects/Account/${accountId}`)).json as Json;
  assert.equal(rec.Name, 'Classic');
  assert.equal(rec.Description, null);

  const upserted = await batch(
    'upsert',
    `Id,Name\n${accountId},Classic renamed\n,Classic new\n`,
    '<externalIdFieldName>Id</externalIdFieldName>',
  );
  assert.deepEqual(
    upserted.map((r) => [r.Success, r.Created]),
    [
      ['true', 'false'],
      ['true', 'true'],
    ],
  );
});
