import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'node:test';
import { type ApiAnswer, type Stack, startStack } from '../helpers/stack.ts';

interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** Generous on purpose: the unbounded code blocked for 12-17 s; a busy machine must still pass. */
const MAX_LOOP_DELAY_MS = 1000;

/**
 * Sends the request with /healthz asked concurrently, and measures the longest event-loop stall
 * while both run (service and sandboxes share this process, so a stall in the service shows here).
 */
async function whileHealthy(s: Stack, send: () => Promise<ApiAnswer<ErrorBody>>) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const [answer, health] = await Promise.all([send(), fetch(`${s.baseUrl}/healthz`)]);
    assert.equal(health.status, 200);
    return { answer, stallMs: delay.max / 1e6 };
  } finally {
    delay.disable();
  }
}

const longName = (i: number, length: number) => `F${i}_`.padEnd(length, 'x');

test('a 1,000,000-character field name is a 400 naming the limit; the process keeps answering', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const rawBody = JSON.stringify({ data: [{ ['A'.repeat(1_000_000)]: 'x' }] });
  const headers = { 'content-type': 'application/json' };
  const { answer, stallMs } = await whileHealthy(s, () =>
    s.api<ErrorBody>('/v1/object/insert/Account', { rawBody, headers }),
  );
  assert.equal(answer.status, 400, answer.text.slice(0, 300));
  assert.equal(answer.body.error.code, 'field_name_too_long');
  assert.match(answer.body.error.message, /at most 255/);
  assert.equal(answer.body.error.details[0]?.['limit'], 255);
  assert.ok(answer.text.length < 2000, 'the answer does not echo the name');
  assert.ok(stallMs < MAX_LOOP_DELAY_MS, `event loop stalled ${stallMs} ms`);
  assert.equal(s.sf.accounting.count('collections'), 0);
});

test('100,000 unknown keys in one record: 400 too_many_fields, bounded work', async (t) => {
  const s = await startStack(t);
  // Written as text before the measurement (no large objects left for this process's GC), so
  // only the service's handling is measured.
  const keys = Array.from({ length: 100_000 }, (_, i) => `"Nope${i}":1`).join(',');
  const rawBody = `{"data":[{"id":"001000000000000AAA",${keys}}]}`;
  const headers = { 'content-type': 'application/json' };
  for (const path of ['/v1/object/insert/Account', '/v1/object/update/Account']) {
    const { answer, stallMs } = await whileHealthy(s, () => s.api<ErrorBody>(path, { rawBody, headers }));
    assert.equal(answer.status, 400, answer.text.slice(0, 300));
    assert.equal(answer.body.error.code, 'too_many_fields');
    assert.match(answer.body.error.message, /at most 1000/);
    assert.ok(stallMs < MAX_LOOP_DELAY_MS, `${path}: event loop stalled ${stallMs} ms`);
  }
  const { answer } = await whileHealthy(s, () =>
    s.api<ErrorBody>('/v1/object/upsert/Account', {
      rawBody: `{"data":[{${keys}}],"match_key":"Id"}`,
      headers,
    }),
  );
  assert.equal(answer.body.error.code, 'too_many_fields');
});

test('distinct fields are counted across records, case-insensitively', async (t) => {
  const s = await startStack(t);
  const atLimit = Array.from({ length: 1000 }, (_, i) => ({ [`Nope${i}`]: 1, [`NOPE${i}`]: 2 }));
  const ok = await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: atLimit } });
  assert.equal(ok.body.error.code, 'unknown_field', 'at the limit the names are matched');
  const past = [...atLimit, { Nope1000: 1 }];
  const refused = await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: past } });
  assert.equal(refused.body.error.code, 'too_many_fields');
  assert.equal(refused.body.error.details[0]?.['path'], '/data/1000');
});

test('the worst unknown names within the limits: hints for the first few only, bounded work', async (t) => {
  const s = await startStack(t);
  // 1000 distinct unknown names of the longest allowed length, in writes and in get on both CRMs.
  const record = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [longName(i, 255), 1]));
  const headers = { 'content-type': 'application/json' };
  const rawBody = JSON.stringify({ data: [record] });
  const write = await whileHealthy(s, () =>
    s.api<ErrorBody>('/v1/object/insert/Account', { rawBody, headers }),
  );
  assert.equal(write.answer.body.error.code, 'unknown_field');
  assert.ok(write.stallMs < MAX_LOOP_DELAY_MS, `insert: event loop stalled ${write.stallMs} ms`);
  const fields = Array.from({ length: 1000 }, (_, i) => longName(i, 255));
  const sfGet = await whileHealthy(s, () =>
    s.api<ErrorBody>('/v1/object/get/Account', { body: { data: { ids: ['001000000000000AAA'], fields } } }),
  );
  assert.equal(sfGet.answer.body.error.code, 'unknown_field');
  assert.ok(sfGet.stallMs < MAX_LOOP_DELAY_MS, `Salesforce get: event loop stalled ${sfGet.stallMs} ms`);
  const hsGet = await whileHealthy(s, () =>
    s.api<ErrorBody>('/v1/object/get/contacts', {
      token: s.tokens.hubspot,
      body: { data: { ids: ['1'], fields } },
    }),
  );
  assert.equal(hsGet.answer.body.error.code, 'unknown_field');
  assert.ok(hsGet.stallMs < MAX_LOOP_DELAY_MS, `HubSpot get: event loop stalled ${hsGet.stallMs} ms`);

  // Typos still get their hint; past the first five unknown names there is none.
  const typos = ['Nme', 'Industy', 'Phon', 'Webiste', 'Descripton', 'Ratng'];
  const hinted = await s.api<ErrorBody>('/v1/object/get/Account', {
    body: { data: { ids: ['001000000000000AAA'], fields: typos } },
  });
  const hints = hinted.body.error.details.map((d) => d['did_you_mean']);
  assert.deepEqual(hints, ['Name', 'Industry', 'Phone', 'Website', 'Description', null]);
});

test('an object of more than 1000 keys is refused before it is parsed, on every JSON route', async (t) => {
  const s = await startStack(t);
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
  const headers = { 'content-type': 'application/json' };
  const cases: Array<[string, string, string]> = [
    ['/v1/object/add_custom_field/contacts', s.tokens.hubspot, `{"data":{${keys(1001)}}}`],
    ['/v1/object/get/contacts', s.tokens.hubspot, `{"data":{"ids":["1"]},${keys(1001)}}`],
    ['/v1/object/soql', s.tokens.salesforce, `{"data":"SELECT Id FROM Account","x":{${keys(5000)}}}`],
  ];
  for (const [path, token, rawBody] of cases) {
    const answer = await s.api<ErrorBody>(path, { token, rawBody, headers });
    assert.equal(answer.status, 400, `${path}: ${answer.text.slice(0, 200)}`);
    assert.equal(answer.body.error.code, 'too_many_fields', path);
    assert.match(answer.body.error.message, /more than 1000 keys/);
  }
  // 1000 keys pass the scan (and are then judged by the route's own schema).
  const atLimit = await s.api<ErrorBody>('/v1/object/soql', {
    rawBody: `{"data":"SELECT Id FROM Account","x":{${keys(1000)}}}`,
    headers,
  });
  assert.equal(atLimit.body.error.code, 'invalid_body');
});

test('many distinct names spread over many records are refused before the parse; repeated names are not counted', async (t) => {
  const s = await startStack(t);
  const headers = { 'content-type': 'application/json' };
  const record = (r: number) => `{${Array.from({ length: 10 }, (_, k) => `"f${r}_${k}":1`).join(',')}}`;
  const spread = `{"data":[${Array.from({ length: 10_000 }, (_, r) => record(r)).join(',')}]}`;
  const refused = await s.api<ErrorBody>('/v1/object/insert/Account', { rawBody: spread, headers });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, 'too_many_fields');
  assert.match(refused.body.error.message, /more than 4000 distinct keys/);
  // The same ten names in every record, in varying order: counted once each, judged by the fields.
  const names = Array.from({ length: 10 }, (_, k) => `Nope${k}`);
  const rotated = Array.from({ length: 10_000 }, (_, r) =>
    Object.fromEntries(names.map((_, k) => [names[(k + r) % 10], 1])),
  );
  const judged = await s.api<ErrorBody>('/v1/object/insert/Account', { body: { data: rotated } });
  assert.equal(judged.body.error.code, 'unknown_field');
});
