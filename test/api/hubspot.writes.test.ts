import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}
interface Result {
  id?: string;
  success: boolean;
  errors: RecordError[];
}
interface WriteBody {
  data: Result[];
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

/**
 * A write with the HubSpot token. The stack's clock (the service's and the sandbox's) runs fast
 * meanwhile: HubSpot's windows, which the service paces its calls under, pass without real waits.
 */
const write = <T = WriteBody>(s: Stack, path: string, body: unknown) =>
  s.clock.fastForward(s.api<T>(path, { token: s.tokens.hubspot, body }));

/** Counts the 429s HubSpot sent to the service. */
function count429(s: Stack): { n: number } {
  const seen = { n: 0 };
  s.ctx.client.addHook((event) => {
    if (event.status === 429) seen.n += 1;
  });
  return seen;
}

const contact = (s: Stack, id: string | undefined) =>
  id === undefined ? undefined : s.hs.portal.records.get('0-1', id);

test('10 000 contacts inserted, updated and deleted with the rate limit on and shuffled 207 answers: results in input order, no 429 reaches the client', async (t) => {
  const s = await startStack(t, { hubspot: { batchResultOrder: 'shuffled' } });
  const refusals = count429(s);
  const n = 10_000;
  const records = Array.from({ length: n }, (_, i) => ({
    email: `bulk${i}@example.com`,
    firstname: `First ${i}`,
    lifecyclestage: 'lead',
  }));
  // One duplicate of an earlier email mid-way, in another batch of 100. Batches run concurrently,
  // so which of the two HubSpot sees first is not defined (docs/hubspot.md): one is created, the
  // other carries HubSpot's 409, each at its own place.
  records[5_050] = { email: 'bulk17@example.com', firstname: 'Dup', lifecyclestage: 'lead' };

  const inserted = await write(s, '/v1/object/insert/contacts', { data: records });
  assert.equal(inserted.status, 200, inserted.text.slice(0, 300));
  assert.equal(inserted.body.data.length, n);
  inserted.body.data.forEach((r, i) => {
    if (i === 17 || i === 5_050) return;
    assert.equal(r.success, true, `record ${i}: ${JSON.stringify(r.errors)}`);
    assert.equal(contact(s, r.id)?.properties['email'], `bulk${i}@example.com`, `record ${i} at its place`);
  });
  const pair = [17, 5_050].map((i) => ({ i, r: inserted.body.data[i] }));
  const created = pair.filter((p) => p.r?.success === true);
  const refused = pair.filter((p) => p.r?.success === false);
  assert.equal(created.length, 1, `one of records 17 and 5050 created: ${JSON.stringify(pair)}`);
  assert.equal(refused.length, 1);
  const winner = created[0];
  assert.equal(contact(s, winner?.r?.id)?.properties['firstname'], winner?.i === 17 ? 'First 17' : 'Dup');
  assert.equal(refused[0]?.r?.errors[0]?.statusCode, 'CONFLICT');
  assert.match(
    refused[0]?.r?.errors[0]?.message ?? '',
    new RegExp(`already exists. Existing ID: ${winner?.r?.id}`),
  );
  assert.equal(s.hs.accounting.count('objects.batch.create'), 100, 'batches of 100');

  const ids = inserted.body.data.map((r) => r.id).filter((id): id is string => typeof id === 'string');
  const updated = await write(s, '/v1/object/update/contacts', {
    data: ids.map((id, i) => ({ id, lastname: `Last ${i}`, hs_lead_status: 'open' })),
  });
  assert.equal(updated.status, 200, updated.text.slice(0, 300));
  updated.body.data.forEach((r, i) => {
    assert.equal(r.success, true, `update ${i}: ${JSON.stringify(r.errors)}`);
    assert.equal(r.id, ids[i]);
    assert.equal(contact(s, ids[i])?.properties['lastname'], `Last ${i}`);
    // The option matched regardless of case and sent as HubSpot spells it.
    assert.equal(contact(s, ids[i])?.properties['hs_lead_status'], 'OPEN');
  });

  const deleted = await write(s, '/v1/object/delete/contacts', { data: { ids } });
  assert.equal(deleted.status, 200, deleted.text.slice(0, 300));
  deleted.body.data.forEach((r, i) => {
    assert.deepEqual(r, { id: ids[i], success: true, errors: [] });
  });
  assert.equal(s.hs.portal.records.get('0-1', ids[0] as string), undefined, 'archived');
  assert.equal(refusals.n, 0, 'HubSpot never refused a call: the pacer kept under the window');
});

test('a partial failure mid-batch fails only its records: values HubSpot refuses, values refused before sending, duplicates in one request', async (t) => {
  const s = await startStack(t, { hubspot: { batchResultOrder: 'shuffled' } });
  const existing = s.hs.portal.records.list('0-1')[0];
  assert.ok(existing);
  const records: Array<Record<string, unknown>> = Array.from({ length: 250 }, (_, i) => ({
    email: `partial${i}@example.com`,
  }));
  records[120] = { email: 'partial120@example.com', hs_email_domain: 'read-only.example' };
  records[121] = { email: 'partial121@example.com', lifecyclestage: 'custmer' };
  records[150] = { email: 'same@example.com', firstname: 'A' };
  records[151] = { email: 'SAME@example.com', firstname: 'B' };
  records[199] = { email: existing.properties['email'] };
  records[200] = { email: 'partial200@example.com', hs_latest_source_timestamp: '2025-03-04T10:00:00Z' };
  records[201] = { email: 'partial201@example.com', hs_latest_source_timestamp: 1_741_046_400_000 };
  const answer = await write(s, '/v1/object/insert/contacts', { data: records });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  const data = answer.body.data;
  assert.equal(data.length, 250);

  // HubSpot refused it inside a 207; the service found it by its trace id.
  assert.equal(data[120]?.success, false);
  assert.equal(data[120]?.errors[0]?.statusCode, 'READ_ONLY_VALUE');
  assert.deepEqual(data[120]?.errors[0]?.fields, ['hs_email_domain']);
  // Refused before sending, with the closest option.
  assert.equal(data[121]?.success, false);
  assert.equal(data[121]?.errors[0]?.statusCode, 'INVALID_OPTION');
  assert.match(data[121]?.errors[0]?.message ?? '', /Did you mean "customer"\?/);
  // Two inputs with one email (any case): the first is created, the second is HubSpot's 409.
  assert.equal(data[150]?.success, true);
  assert.equal(data[151]?.success, false);
  assert.equal(data[151]?.errors[0]?.statusCode, 'CONFLICT');
  assert.equal(data[199]?.success, false);
  assert.match(data[199]?.errors[0]?.message ?? '', new RegExp(`Existing ID: ${existing.id}`));
  // A date property takes only midnight UTC; epoch milliseconds at midnight become YYYY-MM-DD.
  assert.equal(data[200]?.success, false);
  assert.equal(data[200]?.errors[0]?.statusCode, 'INVALID_DATE');
  assert.equal(data[201]?.success, true);
  assert.equal(contact(s, data[201]?.id)?.properties['hs_latest_source_timestamp'], '2025-03-04');

  const failed = new Set([120, 121, 151, 199, 200]);
  data.forEach((r, i) => {
    if (failed.has(i)) return;
    assert.equal(r.success, true, `record ${i}: ${JSON.stringify(r.errors)}`);
    assert.equal(
      contact(s, r.id)?.properties['email']?.toLowerCase(),
      String(records[i]?.['email']).toLowerCase(),
    );
  });
  assert.equal(
    s.hs.portal.records.list('0-1').filter((r) => r.properties['email'] === 'partial121@example.com').length,
    0,
  );
});

test('update: malformed and missing ids fail on their own; the same id twice is written in order', async (t) => {
  const s = await startStack(t, { hubspot: { batchResultOrder: 'shuffled' } });
  const [a, b] = s.hs.portal.records.list('0-1');
  assert.ok(a && b);
  const answer = await write(s, '/v1/object/update/contacts', {
    data: [
      { id: a.id, firstname: 'One' },
      { id: 'abc', firstname: 'Two' },
      { id: '99999999', firstname: 'Three' },
      { id: a.id, firstname: 'Four' },
      { id: b.id, lifecyclestage: 'Customer', hs_email_optout: 'TRUE' },
    ],
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  const [one, two, three, four, five] = answer.body.data;
  assert.deepEqual(one, { id: a.id, success: true, errors: [] });
  assert.equal(two?.errors[0]?.statusCode, 'MALFORMED_ID');
  assert.equal(three?.success, false);
  assert.equal(three?.errors[0]?.statusCode, 'OBJECT_NOT_FOUND');
  assert.equal(four?.success, true);
  assert.equal(s.hs.portal.records.get('0-1', a.id)?.properties['firstname'], 'Four');
  // A read-only boolean is HubSpot's to refuse; the option was matched by label.
  assert.equal(five?.success, false);
  assert.equal(five?.errors[0]?.statusCode, 'READ_ONLY_VALUE');
});

test('unknown properties are a 400 naming the closest; insert refuses ids; HubSpot delete needs the object name', async (t) => {
  const s = await startStack(t);
  const unknown = await write<ErrorBody>(s, '/v1/object/insert/contacts', {
    data: [{ email: 'x@example.com', fristname: 'Ada' }],
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.code, 'unknown_field');
  assert.equal(unknown.body.error.details[0]?.['did_you_mean'], 'firstname');

  const withId = await write<ErrorBody>(s, '/v1/object/insert/contacts', {
    data: [{ id: '12', email: 'y@example.com' }],
  });
  assert.equal(withId.status, 400);
  assert.equal(withId.body.error.code, 'invalid_body');

  const noObject = await write<ErrorBody>(s, '/v1/object/delete', { data: { ids: ['1'] } });
  assert.equal(noObject.status, 400);
  assert.match(noObject.body.error.message, /\/v1\/object\/delete\/\{object_name\}/);

  const tooMany = await write<ErrorBody>(s, '/v1/object/insert/contacts', {
    data: Array.from({ length: 10_001 }, () => ({})),
  });
  assert.equal(tooMany.status, 400);
});

test('delete: missing, malformed and repeated ids each answered at their place', async (t) => {
  const s = await startStack(t);
  const [a] = s.hs.portal.records.list('0-2');
  assert.ok(a);
  const answer = await write(s, '/v1/object/delete/companies', {
    data: { ids: [a.id, '99999999', 'x;DROP', a.id] },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  const [one, missing, bad, again] = answer.body.data;
  assert.deepEqual(one, { id: a.id, success: true, errors: [] });
  assert.equal(missing?.errors[0]?.statusCode, 'OBJECT_NOT_FOUND');
  assert.equal(bad?.errors[0]?.statusCode, 'MALFORMED_ID');
  assert.deepEqual(again, one);
  assert.equal(s.hs.portal.records.get('0-2', a.id), undefined);
});

const HOSTILE = `x" OR "1"="1'; DROP TABLE contacts; -- \\ * %_`;

test('upsert on id: an existing id updates, an unknown or hostile one creates', async (t) => {
  const s = await startStack(t);
  const [a] = s.hs.portal.records.list('0-1');
  assert.ok(a);
  const update = await write(s, '/v1/object/upsert/contacts', {
    data: [{ id: a.id, firstname: 'Upd' }],
    match_key: 'id',
  });
  assert.equal(update.status, 200, update.text.slice(0, 300));
  assert.equal(update.headers.get('x-crm-proxy-upsert-action'), 'update');
  assert.deepEqual(update.body.data[0], { id: a.id, success: true, errors: [] });
  assert.equal(s.hs.portal.records.get('0-1', a.id)?.properties['firstname'], 'Upd');

  const hostile = await write(s, '/v1/object/upsert/contacts', {
    data: [{ id: HOSTILE, email: 'hostile-id@example.com' }],
    match_key: 'id',
  });
  assert.equal(hostile.status, 200, hostile.text.slice(0, 300));
  assert.equal(hostile.headers.get('x-crm-proxy-upsert-action'), 'insert');
  assert.equal(contact(s, hostile.body.data[0]?.id)?.properties['email'], 'hostile-id@example.com');
});

test("upsert on a unique property uses HubSpot's own upsert (idProperty), hostile values included", async (t) => {
  const s = await startStack(t);
  const hostileEmail = `"o'hara\\"+${HOSTILE.length}@example.com`;
  const created = await write(s, '/v1/object/upsert/contacts', {
    data: [{ email: hostileEmail, firstname: 'New' }],
    match_key: 'email',
  });
  assert.equal(created.status, 200, created.text.slice(0, 300));
  assert.equal(created.headers.get('x-crm-proxy-upsert-action'), 'insert');
  const id = created.body.data[0]?.id;
  assert.equal(contact(s, id)?.properties['email'], hostileEmail);

  const again = await write(s, '/v1/object/upsert/contacts', {
    data: [{ email: hostileEmail, firstname: 'Again' }],
    match_key: 'email',
  });
  assert.equal(again.headers.get('x-crm-proxy-upsert-action'), 'update');
  assert.equal(again.body.data[0]?.id, id);
  assert.equal(contact(s, id)?.properties['firstname'], 'Again');
  assert.equal(s.hs.accounting.count('objects.batch.upsert'), 2);
  assert.equal(s.hs.accounting.count('objects.search'), 0);
});

test('upsert on any other property searches first (LIMIT 2): 0 creates, 1 updates, 2 fail without writing; hostile values match literally', async (t) => {
  const s = await startStack(t);
  const put = (record: Record<string, unknown>) =>
    write(s, '/v1/object/upsert/contacts', { data: [record], match_key: 'jobtitle' });

  const first = await put({ jobtitle: HOSTILE, email: 'h1@example.com' });
  assert.equal(first.status, 200, first.text.slice(0, 300));
  assert.equal(first.headers.get('x-crm-proxy-upsert-action'), 'insert');
  const id = first.body.data[0]?.id;
  assert.equal(contact(s, id)?.properties['jobtitle'], HOSTILE);

  const second = await put({ jobtitle: HOSTILE, firstname: 'Matched' });
  assert.equal(second.headers.get('x-crm-proxy-upsert-action'), 'update');
  assert.equal(second.body.data[0]?.id, id);
  assert.equal(contact(s, id)?.properties['firstname'], 'Matched');

  // A second record with the same title makes the match ambiguous.
  const other = await write(s, '/v1/object/insert/contacts', {
    data: [{ jobtitle: HOSTILE, email: 'h2@example.com' }],
  });
  assert.equal(other.body.data[0]?.success, true);
  const before = s.hs.portal.records.list('0-1').length;
  const third = await put({ jobtitle: HOSTILE, firstname: 'Nobody' });
  assert.equal(third.status, 200);
  assert.equal(third.headers.get('x-crm-proxy-upsert-action'), 'ambiguous');
  assert.equal(third.body.data[0]?.success, false);
  assert.equal(third.body.data[0]?.errors[0]?.statusCode, 'DUPLICATE_MATCH');
  assert.equal(s.hs.portal.records.list('0-1').length, before, 'nothing written');
  assert.equal(contact(s, id)?.properties['firstname'], 'Matched');
  assert.equal(s.hs.accounting.count('objects.search'), 3);

  const missing = await write<ErrorBody>(s, '/v1/object/upsert/contacts', {
    data: [{ firstname: 'x' }],
    match_key: 'jobtitle',
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, 'missing_match_value');
});

test('many upserts at once with the rate limit on: searches paced at 5 per second, no 429 reaches the client', async (t) => {
  const s = await startStack(t);
  const refusals = count429(s);
  // The searches wait for HubSpot's per-second window on the clock the service and the sandbox
  // share, run fast by `write`: eight seconds of pacing pass without a real wait.
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      write(s, '/v1/object/upsert/contacts', {
        data: [{ jobtitle: `Title ${i}`, email: `t${i}@example.com` }],
        match_key: 'jobtitle',
      }),
    ),
  );
  for (const a of answers) {
    assert.equal(a.status, 200, a.text.slice(0, 200));
    assert.equal(a.body.data[0]?.success, true);
  }
  assert.equal(refusals.n, 0);
  assert.equal(s.hs.accounting.count('objects.search'), 40);
});
