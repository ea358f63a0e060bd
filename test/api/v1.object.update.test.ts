import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { stored, type WriteAnswer } from './sf-writes-helpers.ts';

function seed(s: Awaited<ReturnType<typeof startStack>>, n: number, prefix: string): string[] {
  return s.sf.org
    .insert(
      'Invoice__c',
      Array.from({ length: n }, (_, i) => ({ Name: `${prefix} ${i}`, Amount__c: i })),
    )
    .map((r) => String(r.id));
}

test('update: per-record results in order, through collections and bulk alike', async (t) => {
  const s = await startStack(t);
  const codes: string[][] = [];
  for (const via of ['collections', 'bulk2'] as const) {
    const [a, b, c] = seed(s, 3, via);
    const answer = await s.api<WriteAnswer>('/v1/object/update/Invoice__c', {
      headers: { 'x-crm-proxy-interface': via },
      body: {
        data: [
          { id: a, amount__c: 100, notes__c: null, status__c: 'Paid' },
          { id: 'a0B000000000000AAA', amount__c: 1, notes__c: null, status__c: 'Paid' },
          { id: b, amount__c: 2, notes__c: null, status__c: 'Nope' },
          { id: c, amount__c: 3, notes__c: 'kept', status__c: 'Sent' },
        ],
      },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get('x-crm-proxy-interface'), `${via}; reason=requested`);
    const [ra, rmissing, rb, rc] = answer.body.data;
    assert.deepEqual(ra, { id: a, success: true, errors: [] });
    assert.equal(rmissing?.success, false);
    assert.ok(rmissing?.errors[0]?.statusCode, JSON.stringify(rmissing));
    codes.push(answer.body.data.map((r) => r.errors.map((e) => e.statusCode).join()));
    assert.equal(rb?.success, false);
    assert.equal(rb?.errors[0]?.statusCode, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
    assert.equal(rc?.success, true);
    assert.equal(stored(s, a)?.['Amount__c'], 100);
    assert.equal(stored(s, b)?.['Amount__c'], 1);
    assert.equal(stored(s, c)?.['Notes__c'], 'kept');
  }
  assert.deepEqual(codes[1], codes[0]);
});

test('update: 10 000 records take the bulk path when the org has little of its daily API allowance left', async (t) => {
  const s = await startStack(t, { salesforce: { bulkResultOrder: 'shuffled', apiRequestsUsed: 95_000 } });
  const ids = seed(s, 10_000, 'Upd');
  const answer = await s.api<WriteAnswer>('/v1/object/update/Invoice__c', {
    body: { data: ids.map((id, i) => ({ id, Amount__c: i * 2 })) },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.match(answer.headers.get('x-crm-proxy-interface') ?? '', /^bulk2; reason=allowance-4%-left$/);
  answer.body.data.forEach((r, i) => {
    assert.equal(r.success, true);
    assert.equal(stored(s, ids[i])?.['Amount__c'], i * 2);
  });
});
