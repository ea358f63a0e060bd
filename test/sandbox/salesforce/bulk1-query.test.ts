import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import jsforce from 'jsforce';
import { useSandbox } from './rest-helpers.ts';

// jsforce 3.10.16 (package.json): bulk.query runs a Bulk API 1.0 query job (XML job, CSV results).
const { sf, reset } = useSandbox();
beforeEach(reset);

const connect = () => {
  const conn = new jsforce.Connection({
    instanceUrl: sf().url,
    accessToken: sf().credentials.accessToken,
    version: '62.0',
  });
  conn.bulk.pollInterval = 20;
  return conn;
};

test('Bulk 1.0 query job through jsforce: the result set holds what SOQL returns', async () => {
  const conn = connect();
  const soql = "SELECT Id, Name, Owner.Name FROM Account WHERE Industry = 'Insurance' ORDER BY Name";
  const expected = await conn.query<{ Id: string; Name: string }>(soql);
  const stream = await conn.bulk.query(soql);
  const records: Array<Record<string, unknown>> = [];
  for await (const r of stream) records.push(r as Record<string, unknown>);
  assert.equal(records.length, expected.totalSize);
  assert.deepEqual(
    records.map((r) => r.Id),
    expected.records.map((r) => r.Id),
  );
  assert.equal(typeof records[0]?.['Owner.Name'], 'string');
});

test('Bulk 1.0 query job over HTTP: JSON results, queryAll, and a bad query fails its batch', async () => {
  const h = { 'x-sfdc-session': sf().credentials.accessToken, 'content-type': 'application/json' };
  const base = `${sf().url}/services/async/62.0/job`;
  const create = async (operation: string) =>
    (await (
      await fetch(base, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ operation, object: 'Account', contentType: 'JSON' }),
      })
    ).json()) as { id: string };
  const addBatch = async (job: string, soql: string) => {
    const res = await fetch(`${base}/${job}/batch`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'text/csv' },
      body: soql,
    });
    return { status: res.status, body: (await res.json()) as { id: string; state: string } };
  };
  const job = await create('query');
  const batch = await addBatch(job.id, 'SELECT Id, Name FROM Account LIMIT 3');
  assert.deepEqual([batch.status, batch.body.state], [201, 'Queued']);
  const info = (await (await fetch(`${base}/${job.id}/batch/${batch.body.id}`, { headers: h })).json()) as {
    state: string;
    numberRecordsProcessed: number;
  };
  assert.deepEqual([info.state, info.numberRecordsProcessed], ['Completed', 3]);
  const list = (await (
    await fetch(`${base}/${job.id}/batch/${batch.body.id}/result`, { headers: h })
  ).json()) as string[];
  assert.equal(list.length, 1);
  const rows = (await (
    await fetch(`${base}/${job.id}/batch/${batch.body.id}/result/${list[0]}`, { headers: h })
  ).json()) as Array<{ attributes: { type: string }; Name: string }>;
  assert.equal(rows.length, 3);
  assert.equal(rows[0]?.attributes.type, 'Account');

  const conn = connect();
  const victim = (await conn.sobject('Account').create({ Name: 'Bulk queryAll victim' })) as { id: string };
  await conn.sobject('Account').destroy(victim.id);
  const all = await create('queryAll');
  const b2 = await addBatch(all.id, `SELECT Id, IsDeleted FROM Account WHERE Id = '${victim.id}'`);
  const ids = (await (
    await fetch(`${base}/${all.id}/batch/${b2.body.id}/result`, { headers: h })
  ).json()) as string[];
  const deleted = (await (
    await fetch(`${base}/${all.id}/batch/${b2.body.id}/result/${ids[0]}`, { headers: h })
  ).json()) as Array<{ IsDeleted: boolean }>;
  assert.deepEqual(
    deleted.map((r) => r.IsDeleted),
    [true],
  );

  const bad = await addBatch(job.id, 'SELECT Nope FROM Account');
  const failed = (await (await fetch(`${base}/${job.id}/batch/${bad.body.id}`, { headers: h })).json()) as {
    state: string;
    stateMessage: string;
  };
  assert.equal(failed.state, 'Failed');
  assert.match(failed.stateMessage, /^InvalidBatch : Failed to process query: INVALID_FIELD/);
});
