// Bulk job identity: Bulk API 1.0 and 2.0 jobs, ingest and query, share one id space (all `750`
// ids of one org), so an id names one job whichever API made it; asked for through an API that did
// not make it, a job is unknown there, in that API's own error format.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSalesforceSandbox } from '../../../sandbox/salesforce/index.ts';

type T = { after: (fn: () => Promise<void>) => void };

async function start(t: T) {
  const sf = await startSalesforceSandbox({ port: 0 });
  t.after(() => sf.close());
  const token = sf.credentials.accessToken;
  const v2 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sf.url}/services/data/v62.0/jobs${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sf.url}/services/async/62.0${path}`, {
      method,
      headers: {
        'x-sfdc-session': token,
        'content-type': 'application/json',
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
  };
  return { v1, v2 };
}

test('Bulk 1.0 and 2.0 jobs, ingest and query, never share an id', async (t) => {
  const { v1, v2 } = await start(t);
  const ids: Array<[string, string]> = [];
  for (let i = 0; i < 3; i++) {
    const ingest = await v2('POST', '/ingest', { object: 'Account', operation: 'delete' });
    assert.equal(ingest.status, 200);
    ids.push(['2.0 ingest', String((ingest.json as { id: string }).id)]);
    const query = await v2('POST', '/query', { operation: 'query', query: 'SELECT Id FROM Account' });
    assert.equal(query.status, 200);
    ids.push(['2.0 query', String((query.json as { id: string }).id)]);
    const classic = await v1('POST', '/job', {
      operation: 'upsert',
      object: 'Contact',
      externalIdFieldName: 'Id',
      contentType: 'JSON',
    });
    assert.equal(classic.status, 201, JSON.stringify(classic.json));
    ids.push(['1.0', String(classic.json.id)]);
  }
  for (const [, id] of ids) assert.match(id, /^750[A-Za-z0-9]{15}$/);
  assert.equal(new Set(ids.map(([, id]) => id)).size, ids.length, JSON.stringify(ids));
});

test('a job asked for through another API is unknown there, in that API’s own format', async (t) => {
  const { v1, v2 } = await start(t);
  const ingest = String(
    ((await v2('POST', '/ingest', { object: 'Account', operation: 'delete' })).json as { id: string }).id,
  );
  const query = String(
    (
      (await v2('POST', '/query', { operation: 'query', query: 'SELECT Id FROM Account' })).json as {
        id: string;
      }
    ).id,
  );
  const classic = String(
    (await v1('POST', '/job', { operation: 'insert', object: 'Contact', contentType: 'JSON' })).json.id,
  );

  // Each job answers through its own API.
  assert.equal((await v2('GET', `/ingest/${ingest}`)).status, 200);
  assert.equal((await v2('GET', `/query/${query}`)).status, 200);
  assert.equal((await v1('GET', `/job/${classic}`)).json.object, 'Contact');

  // Through the others: Bulk 2.0's 404 NOT_FOUND, Bulk 1.0's 400 InvalidJob.
  const notFound = [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }];
  for (const path of [`/ingest/${query}`, `/ingest/${classic}`, `/query/${ingest}`, `/query/${classic}`]) {
    const r = await v2('GET', path);
    assert.deepEqual([r.status, r.json], [404, notFound], path);
  }
  for (const id of [ingest, query]) {
    const r = await v1('GET', `/job/${id}`);
    assert.equal(r.status, 400, id);
    assert.equal(r.json.exceptionCode, 'InvalidJob');
  }
});
