import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, sharedStack } from '../helpers/stack.ts';

/** One stack for the file: every test makes its own records and resets the accounting it counts. */
const stack = sharedStack();

type Rec = { attributes: { type: string; url: string }; Id: string } & Record<string, unknown>;
interface GetAnswer {
  data: Array<Rec | null>;
  errors?: Array<{ index: number; id: string; code: string }>;
}
interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
}

function seedAccounts(s: Stack, n: number): string[] {
  const results = s.sf.org.insert(
    'Account',
    Array.from({ length: n }, (_, i) => ({ Name: `Bulk ${i}`, Industry: 'Energy' })),
  );
  return results.map((r) => {
    assert.ok(r.success && r.id !== undefined);
    return r.id;
  });
}

test('10 000 ids: input order, null for missing ids, duplicates at each place, in as few calls as allowed', async () => {
  const s = await stack();
  const existing = seedAccounts(s, 2500);
  const missing = Array.from({ length: 4000 }, (_, i) => `001ZZ${String(i).padStart(10, '0')}`);
  // 2,500 existing twice, 4,000 missing once, 1,000 more repeats of the first existing ones: 10,000.
  const ids = [...existing, ...missing, ...existing, ...existing.slice(0, 1000)];
  assert.equal(ids.length, 10_000);
  s.sf.accounting.reset();
  const answer = await s.api<GetAnswer>('/v1/object/get/Account', {
    body: { data: { ids, fields: ['Name'] } },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.data.length, 10_000);
  ids.forEach((id, i) => {
    const rec = answer.body.data[i];
    if (id.startsWith('001ZZ')) {
      assert.equal(rec, null, `slot ${i}`);
    } else {
      assert.equal(rec?.Id, id, `slot ${i}`);
      assert.equal(rec?.attributes.type, 'Account');
      assert.match(String(rec?.Name), /^Bulk \d+$/);
    }
  });
  assert.equal(answer.body.errors, undefined);
  // 6,500 distinct ids, 2,000 per sObject Collections retrieve.
  assert.equal(s.sf.accounting.count('collections.retrieve'), 4);
});

test('fields absent or empty return every field; given fields return those plus Id and attributes', async () => {
  const s = await stack();
  const [id] = seedAccounts(s, 1);
  assert.ok(id !== undefined);
  const describe = await s.api<{ data: { fields: Array<{ name: string }> } }>('/v1/describe/Account');
  const allFields = describe.body.data.fields.map((f) => f.name).sort();

  for (const body of [{ ids: [id] }, { ids: [id], fields: [] }]) {
    const answer = await s.api<GetAnswer>('/v1/object/get/Account', { body: { data: body } });
    assert.equal(answer.status, 200);
    const rec = answer.body.data[0];
    assert.ok(rec);
    assert.deepEqual(
      Object.keys(rec)
        .filter((k) => k !== 'attributes')
        .sort(),
      allFields,
    );
  }

  const some = await s.api<GetAnswer>('/v1/object/get/account', {
    body: { data: { ids: [id], fields: ['name', 'INDUSTRY'] } },
  });
  assert.equal(some.status, 200);
  const rec = some.body.data[0];
  assert.ok(rec);
  assert.deepEqual(Object.keys(rec).sort(), ['Id', 'Industry', 'Name', 'attributes']);
  assert.equal(rec.Industry, 'Energy');
  assert.match(rec.attributes.url, new RegExp(`/services/data/v62\\.0/sobjects/Account/${id}$`));
});

test('unknown fields are a 400 naming each field and the closest real one, before any record call', async () => {
  const s = await stack();
  s.sf.accounting.reset();
  const answer = await s.api<ErrorBody>('/v1/object/get/Account', {
    body: { data: { ids: ['001000000000000AAA'], fields: ['Name', 'Industy', 'Zzzzzzzzzzzzzzzzzzzzzz'] } },
  });
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, 'unknown_field');
  assert.deepEqual(answer.body.error.details, [
    { path: '/data/fields/1', field: 'Industy', did_you_mean: 'Industry' },
    { path: '/data/fields/2', field: 'Zzzzzzzzzzzzzzzzzzzzzz', did_you_mean: null },
  ]);
  assert.match(answer.body.error.message, /did you mean "Industry"/);
  assert.equal(s.sf.accounting.count('collections.retrieve'), 0);
});

test('malformed ids and ids of another object answer null at their place without being sent', async () => {
  const s = await stack();
  const [id] = seedAccounts(s, 1);
  assert.ok(id !== undefined);
  s.sf.accounting.reset();
  const answer = await s.api<GetAnswer>('/v1/object/get/Account', {
    body: { data: { ids: ['nope', id, '003000000000000AAA', id.slice(0, 15)] } },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data[0], null);
  assert.equal(answer.body.data[1]?.Id, id);
  assert.equal(answer.body.data[2], null);
  assert.equal(answer.body.data[3]?.Id, id, 'a 15-character id finds the record too');
  assert.deepEqual(
    answer.body.errors?.map((e) => [e.index, e.id, e.code]),
    [[0, 'nope', 'malformed_id']],
  );
  assert.equal(s.sf.accounting.count('collections.retrieve'), 1);
});

test('a dropped connection on a retrieve is retried (it only reads)', async () => {
  const s = await stack();
  const [id] = seedAccounts(s, 1);
  assert.ok(id !== undefined);
  await s.api('/v1/describe/Account');
  s.sf.realism.script([{ kind: 'drop', match: 'collections.retrieve', times: 1 }]);
  s.sf.accounting.reset();
  const answer = await s.api<GetAnswer>('/v1/object/get/Account', {
    body: { data: { ids: [id], fields: ['Name'] } },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data[0]?.Id, id);
  assert.equal(s.sf.accounting.count('collections.retrieve'), 2);
});

test('distinct ids over several calls are answered in input order (records passed on as Salesforce sent them)', async () => {
  const s = await stack();
  const existing = seedAccounts(s, 2500);
  const missing = Array.from({ length: 2000 }, (_, i) => `001YY${String(i).padStart(10, '0')}`);
  // Interleave so that every retrieve call holds both kinds.
  const ids = existing.flatMap((id, i) => (i < missing.length ? [missing[i] as string, id] : [id])).reverse();
  s.sf.accounting.reset();
  const answer = await s.api<GetAnswer>('/v1/object/get/Account', {
    body: { data: { ids, fields: ['Name'] } },
  });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.data.length, 4500);
  ids.forEach((id, i) => {
    const rec = answer.body.data[i];
    if (id.startsWith('001YY')) assert.equal(rec, null);
    else assert.equal(rec?.Id, id);
  });
  assert.equal(s.sf.accounting.count('collections.retrieve'), 3);
});
