import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, sharedStack } from '../helpers/stack.ts';
import { outcomeCounts } from './sf-writes-helpers.ts';

// Batches run in parallel, so which one a fault hits is not fixed: writes are whole batches of 100.
// Writes whose answer HubSpot drops after applying them (`drop_answer`): the service asks HubSpot
// what it holds before answering, and nothing is ever written twice.

interface Result {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
}
interface WriteBody {
  data: Result[];
}

const stack = sharedStack();

const write = (s: Stack, path: string, body: unknown) =>
  s.clock.fastForward(s.api<WriteBody>(path, { token: s.tokens.hubspot, body }));

async function faults(s: Stack, list: Array<{ kind: string; match: string; times?: number; skip?: number }>) {
  const response = await fetch(`${s.hs.url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults: list }),
  });
  assert.ok(response.ok, await response.text());
}

/** Live records of a type whose property starts with a prefix, counted in the sandbox's portal. */
function stored(s: Stack, typeId: string, property: string, prefix: string) {
  return s.hs.portal.records
    .list(typeId)
    .filter((r) => String(r.properties[property] ?? '').startsWith(prefix));
}

/** Every success names a record holding the record's key; the type holds each record once. */
function assertWrittenOnce(
  s: Stack,
  typeId: string,
  key: string,
  records: Array<Record<string, string>>,
  answer: WriteBody,
) {
  const held = stored(s, typeId, key, String(records[0]?.[key]).slice(0, 6));
  const byValue = new Map<string, number>();
  for (const r of held)
    byValue.set(String(r.properties[key]), (byValue.get(String(r.properties[key])) ?? 0) + 1);
  for (const [value, n] of byValue) assert.equal(n, 1, `${value} is held ${n} times`);
  answer.data.forEach((r, i) => {
    if (!r.success) return;
    const record = s.hs.portal.records.get(typeId, String(r.id));
    assert.equal(record?.properties[key], records[i]?.[key], `record ${i}`);
  });
}

test('contacts insert: a lost batch answer is reconciled by email; every record answered written once', async () => {
  const s = await stack();
  const records = Array.from({ length: 200 }, (_, i) => ({
    email: `lostc${i}@example.com`,
    firstname: `L ${i}`,
  }));
  await faults(s, [{ kind: 'drop_answer', match: 'objects.batch.create', skip: 1 }]);
  const answer = await write(s, '/v1/object/insert/contacts', { data: records });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 200 });
  assert.equal(stored(s, '0-1', 'email', 'lostc').length, 200);
  assertWrittenOnce(s, '0-1', 'email', records, answer.body);
});

test('contacts insert: a call dropped before HubSpot handled it is found absent: not written, and says so', async () => {
  const s = await stack();
  const records = Array.from({ length: 200 }, (_, i) => ({
    email: `dropc${i}@example.com`,
    firstname: `D ${i}`,
  }));
  await faults(s, [{ kind: 'drop', match: 'objects.batch.create', skip: 1 }]);
  const answer = await write(s, '/v1/object/insert/contacts', { data: records });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 100, CRM_PROXY_NOT_WRITTEN: 100 });
  assert.equal(stored(s, '0-1', 'email', 'dropc').length, 100);
  assertWrittenOnce(s, '0-1', 'email', records, answer.body);
});

test('custom object insert: a lost answer is reconciled by its unique-value property (vin)', async () => {
  const s = await stack();
  const records = Array.from({ length: 100 }, (_, i) => ({ vin: `LOSTVIN${i}`, make: 'Volvo' }));
  await faults(s, [{ kind: 'drop_answer', match: 'objects.batch.create' }]);
  const answer = await write(s, '/v1/object/insert/cars', { data: records });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { written: 100 });
  const typeId = String(s.hs.portal.types.resolve('p_cars')?.objectTypeId);
  assert.equal(stored(s, typeId, 'vin', 'LOSTVIN').length, 100);
  assertWrittenOnce(s, typeId, 'vin', records, answer.body);
});

test('deals insert (no unique-value property): a lost answer stays CRM_PROXY_OUTCOME_UNKNOWN, written once', async () => {
  const s = await stack();
  const records = Array.from({ length: 200 }, (_, i) => ({ dealname: `Lostdeal ${i}` }));
  await faults(s, [{ kind: 'drop_answer', match: 'objects.batch.create' }]);
  const answer = await write(s, '/v1/object/insert/deals', { data: records });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.deepEqual(outcomeCounts(answer.body), { CRM_PROXY_OUTCOME_UNKNOWN: 100, written: 100 });
  // HubSpot did write them: once each, and never again by the service.
  assert.equal(stored(s, '0-3', 'dealname', 'Lostdeal ').length, 200);
});

const upsert = (s: Stack, email: string) =>
  s.clock.fastForward(
    s.api<WriteBody>('/v1/object/upsert/contacts', {
      token: s.tokens.hubspot,
      body: { match_key: 'email', data: [{ email, firstname: 'U' }] },
    }),
  );

test('contacts upsert by email: a lost answer is answered as the insert it was, never as an update', async () => {
  const s = await stack();
  // One lost answer (HubSpot's resend then finds the record), then every attempt's answer lost.
  for (const [email, times] of [
    ['lostupsert1@example.com', 1],
    ['lostupsert3@example.com', 3],
  ] as const) {
    await faults(s, [{ kind: 'drop_answer', match: 'objects.batch.upsert', times }]);
    const answer = await upsert(s, email);
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(answer.body.data[0]?.success, true, JSON.stringify(answer.body));
    assert.equal(answer.headers.get('x-crm-proxy-upsert-action'), 'insert');
    const held = stored(s, '0-1', 'email', email);
    assert.equal(held.length, 1);
    assert.equal(held[0]?.id, answer.body.data[0]?.id);
  }
  // Every attempt dropped before HubSpot handled it: found absent, not written.
  await faults(s, [{ kind: 'drop', match: 'objects.batch.upsert', times: 3 }]);
  const dropped = await upsert(s, 'dropupsert@example.com');
  assert.equal(dropped.body.data[0]?.errors[0]?.statusCode, 'CRM_PROXY_NOT_WRITTEN');
  assert.equal(stored(s, '0-1', 'email', 'dropupsert@').length, 0);
});
