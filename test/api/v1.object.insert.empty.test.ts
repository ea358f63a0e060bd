import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import type { RecordResult, WriteAnswer } from './sf-writes-helpers.ts';

const requiredName = (r: RecordResult | undefined, at: string) => {
  assert.equal(r?.success, false, at);
  assert.equal(r?.errors[0]?.statusCode, 'REQUIRED_FIELD_MISSING', at);
  assert.deepEqual(r?.errors[0]?.fields, ['Name'], at);
};

test('empty records get the same per-record answer whatever their number or the interface asked for', async (t) => {
  const s = await startStack(t);
  for (const [count, forced] of [
    [2, undefined],
    [10_000, undefined],
    [3, 'bulk2'],
  ] as const) {
    const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
      body: { data: Array.from({ length: count }, () => ({})) },
      ...(forced === undefined ? {} : { headers: { 'x-crm-proxy-interface': forced } }),
    });
    assert.equal(answer.status, 200, `${count} empty records: ${answer.text.slice(0, 300)}`);
    assert.equal(answer.body.data.length, count);
    for (const [i, r] of answer.body.data.entries()) requiredName(r, `${count} records, #${i}`);
    // Nothing to put in a Bulk CSV: Collections carries them, and the answer says so.
    assert.equal(answer.headers.get('x-crm-proxy-interface'), 'collections; reason=records-without-fields');
  }
});

test('empty records among others in a Bulk job are answered at their own places', async (t) => {
  const s = await startStack(t);
  const records = Array.from({ length: 2_000 }, (_, i) => (i % 10 === 3 ? {} : { Name: `Mixed ${i}` }));
  const answer = await s.api<WriteAnswer>('/v1/object/insert/Account', {
    headers: { 'x-crm-proxy-interface': 'bulk2' },
    body: { data: records },
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.headers.get('x-crm-proxy-interface'), 'bulk2; reason=requested');
  answer.body.data.forEach((r, i) => {
    if (i % 10 === 3) requiredName(r, `#${i}`);
    else assert.equal(r.success, true, `#${i}: ${JSON.stringify(r)}`);
  });
});
