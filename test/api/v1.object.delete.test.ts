import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { stored, type WriteAnswer } from './sf-writes-helpers.ts';

test('delete: ids of any objects, per-record results in order, the same through collections and bulk', async (t) => {
  const s = await startStack(t);
  const answers: WriteAnswer[] = [];
  for (const via of ['collections', 'bulk2'] as const) {
    const [account] = s.sf.org.insert('Account', [{ Name: `Del ${via}` }]).map((r) => String(r.id));
    const [invoice] = s.sf.org.insert('Invoice__c', [{ Name: `Del ${via}` }]).map((r) => String(r.id));
    const answer = await s.api<WriteAnswer>('/v1/object/delete', {
      headers: { 'x-crm-proxy-interface': via },
      body: { data: { ids: [account, 'nonsense', invoice, 'a0B000000000000AAA'] } },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('x-crm-proxy-interface'), `${via}; reason=requested`);
    const [ra, rbad, ri, rmissing] = answer.body.data;
    assert.deepEqual(ra, { id: account, success: true, errors: [] });
    assert.deepEqual(ri, { id: invoice, success: true, errors: [] });
    assert.equal(rbad?.success, false);
    assert.equal(rmissing?.success, false);
    // Deleted records go to the recycle bin.
    assert.equal(stored(s, account)?.['IsDeleted'], true);
    assert.equal(stored(s, invoice)?.['IsDeleted'], true);
    answers.push(answer.body);
  }
  const [c, b] = answers;
  assert.deepEqual(
    b?.data.map((r) => [r.success, r.errors.map((e) => e.statusCode)]),
    c?.data.map((r) => [r.success, r.errors.map((e) => e.statusCode)]),
  );
});

test('delete: an id with a comma fails alone and does not shift the other results', async (t) => {
  const s = await startStack(t);
  const [account] = s.sf.org.insert('Account', [{ Name: 'Comma' }]).map((r) => String(r.id));
  const answer = await s.api<WriteAnswer>('/v1/object/delete', {
    headers: { 'x-crm-proxy-interface': 'collections' },
    body: { data: { ids: ['!,!', account, 'a,b,c'] } },
  });
  assert.equal(answer.status, 200, answer.text);
  const [first, second, third] = answer.body.data;
  assert.deepEqual(
    first?.errors.map((e) => e.statusCode),
    ['MALFORMED_ID'],
  );
  assert.deepEqual(second, { id: account, success: true, errors: [] });
  assert.deepEqual(
    third?.errors.map((e) => e.statusCode),
    ['MALFORMED_ID'],
  );
});

test('delete: more than 10 000 ids is a 400 before anything is sent', async (t) => {
  const s = await startStack(t);
  s.sf.accounting.reset();
  const ids = Array.from({ length: 10_001 }, (_, i) => `001${String(i).padStart(15, '0')}`);
  const answer = await s.api<{ error: { code: string } }>('/v1/object/delete', { body: { data: { ids } } });
  assert.equal(answer.status, 400);
  assert.ok(['too_many_ids', 'invalid_body'].includes(answer.body.error.code));
  assert.equal(s.sf.accounting.count('collections.delete'), 0);
});
