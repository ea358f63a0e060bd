import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Stack, startStack } from '../helpers/stack.ts';

interface Result {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string }>;
}
interface Read {
  data: Array<{
    id: string;
    to: Array<{ id: string; types: Array<{ category: string; typeId: number; label: string | null }> }>;
  }>;
}
interface ErrorBody {
  error: { code: string; message: string };
}

const call = <T>(s: Stack, path: string, data: unknown, token = s.tokens.hubspot) =>
  s.api<T>(path, { token, body: { data } });

test('associations: created by label or default, read with their labels both ways, removed; engagements are objects', async (t) => {
  const s = await startStack(t);
  const [c1, c2] = s.hs.portal.records.list('0-1');
  const [company] = s.hs.portal.records.list('0-2');
  assert.ok(c1 && c2 && company);

  // A note is an object like any other: insert, then associate it.
  const note = await call<{ data: Result[] }>(s, '/v1/object/insert/notes', [
    { hs_timestamp: '2025-01-02T03:04:05Z', hs_note_body: 'Met at the fair' },
  ]);
  assert.equal(note.status, 200, note.text.slice(0, 300));
  const noteId = note.body.data[0]?.id as string;

  const created = await call<{ data: Result[] }>(s, '/v1/object/associate/contacts', [
    { id: c1.id, to: 'companies', to_id: company.id, label: 'primary' },
    { id: c2.id, to: 'companies', to_id: company.id },
    { id: c1.id, to: 'companies', to_id: company.id, label: 'Primery' },
    { id: c1.id, to: 'notes', to_id: noteId },
    { id: c2.id, to: 'companies', to_id: '99999999' },
    { id: 'x', to: 'companies', to_id: company.id },
  ]);
  assert.equal(created.status, 200, created.text.slice(0, 300));
  const [primary, plain, misspelt, toNote, missing, malformed] = created.body.data;
  assert.deepEqual(primary, { id: c1.id, success: true, errors: [] });
  assert.equal(plain?.success, true);
  assert.equal(misspelt?.errors[0]?.statusCode, 'INVALID_ASSOCIATION_LABEL');
  assert.match(misspelt?.errors[0]?.message ?? '', /Did you mean "Primary"\?/);
  assert.equal(toNote?.success, true);
  assert.equal(missing?.success, false);
  assert.equal(missing?.errors[0]?.statusCode, 'VALIDATION_ERROR');
  assert.equal(malformed?.errors[0]?.statusCode, 'MALFORMED_ID');

  const read = await call<Read>(s, '/v1/object/associations/companies', {
    ids: [company.id, '424242'],
    to: 'contacts',
  });
  assert.equal(read.status, 200, read.text.slice(0, 300));
  const [first, none] = read.body.data;
  assert.equal(first?.id, company.id);
  assert.deepEqual(
    first?.to.map((a) => [a.id, a.types.map((x) => x.label)]).sort(),
    [
      [c1.id, ['Primary']],
      [c2.id, [null]],
    ].sort(),
  );
  assert.deepEqual(none, { id: '424242', to: [] });
  const notes = await call<Read>(s, '/v1/object/associations/notes', { ids: [noteId], to: 'contacts' });
  assert.equal(notes.body.data[0]?.to[0]?.id, c1.id);

  const removed = await call<{ data: Result[] }>(s, '/v1/object/dissociate/contacts', [
    { id: c1.id, to: 'companies', to_id: company.id },
  ]);
  assert.deepEqual(removed.body.data, [{ id: c1.id, success: true, errors: [] }]);
  const after = await call<Read>(s, '/v1/object/associations/companies', {
    ids: [company.id],
    to: 'contacts',
  });
  assert.deepEqual(
    after.body.data[0]?.to.map((a) => a.id),
    [c2.id],
  );

  const sf = await call<ErrorBody>(
    s,
    '/v1/object/associations/Account',
    { ids: ['1'], to: 'Contact' },
    s.tokens.salesforce,
  );
  assert.equal(sf.status, 422);
  assert.equal(sf.body.error.code, 'operation_not_available');
  const viaGet = await call<ErrorBody>(s, '/v1/object/get/associations', { ids: ['1'] });
  assert.equal(viaGet.status, 422);
  assert.match(viaGet.body.error.message, /\/v1\/object\/associations\/\{object_name\}/);
});

test('1 000 associations created in one request with the rate limit on: paced, no 429', async (t) => {
  const s = await startStack(t);
  const seen = { n: 0 };
  s.ctx.client.addHook((event) => {
    if (event.status === 429) seen.n += 1;
  });
  const tasks = await call<{ data: Result[] }>(
    s,
    '/v1/object/insert/tasks',
    Array.from({ length: 1_000 }, (_, i) => ({
      hs_timestamp: 1_735_689_600_000 + i,
      hs_task_subject: `Task ${i}`,
    })),
  );
  assert.ok(tasks.body.data.every((r) => r.success));
  const [contact] = s.hs.portal.records.list('0-1');
  assert.ok(contact);
  const linked = await call<{ data: Result[] }>(
    s,
    '/v1/object/associate/tasks',
    tasks.body.data.map((r) => ({ id: r.id as string, to: 'contacts', to_id: contact.id })),
  );
  assert.equal(linked.status, 200, linked.text.slice(0, 300));
  assert.ok(linked.body.data.every((r, i) => r.success && r.id === tasks.body.data[i]?.id));
  const read = await call<Read>(s, '/v1/object/associations/contacts', { ids: [contact.id], to: 'tasks' });
  assert.equal(read.body.data[0]?.to.length, 1_000);
  assert.equal(seen.n, 0);
});
