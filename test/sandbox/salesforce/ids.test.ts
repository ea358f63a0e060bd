import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  fixedId,
  IdFactory,
  idSuffix,
  isId,
  normalizeId,
  toId18,
} from '../../../sandbox/salesforce/org/ids.ts';

test('the case-safe suffix matches ids recorded from a real org', () => {
  // From the recordings: 18-character ids Salesforce returned.
  for (const id of [
    '0014S000007NxmlQAC',
    '0014S000007Nx5BQAS',
    '0034S000005YJVlQAO',
    '00Q4S000002sSahUAE',
    '7014S00000097HcQAI',
    '0TO4S000000GuXSWA0',
  ]) {
    assert.equal(toId18(id.slice(0, 15)), id);
  }
  assert.equal(idSuffix('001000000000000'), 'AAA');
  assert.equal(idSuffix('ABCDEABCDEABCDE'), '555');
});

test('normalizeId accepts 15 and 18 characters, rejects malformed ids and wrong suffixes', () => {
  assert.equal(normalizeId('0014S000007NxmlQAC'), '0014S000007NxmlQAC');
  assert.equal(normalizeId('0014S000007Nxml'), '0014S000007NxmlQAC');
  assert.equal(normalizeId('0014S000007NxmlqaC'), '0014S000007NxmlQAC', 'suffix case does not matter');
  assert.equal(normalizeId('0014S000007NxmlQAD'), null, 'suffix must match');
  assert.equal(normalizeId('0014S000007NXMLQAC'), null, 'case of the 15 characters matters');
  assert.equal(normalizeId('001bad'), null);
  assert.equal(normalizeId('0014S000007Nxm!'), null);
  assert.ok(isId('0014S000007Nxml'));
  assert.ok(!isId(42));
});

test('IdFactory hands out deterministic, valid ids with the key prefix', () => {
  const a = new IdFactory();
  const b = new IdFactory();
  const ids = Array.from({ length: 100 }, () => a.next('001'));
  assert.deepEqual(
    ids,
    Array.from({ length: 100 }, () => b.next('001')),
  );
  assert.equal(new Set(ids).size, 100);
  for (const id of ids) {
    assert.equal(id.length, 18);
    assert.ok(id.startsWith('0014S0'));
    assert.equal(normalizeId(id), id);
  }
  assert.ok(a.next('a0B').startsWith('a0B'));
  a.reset();
  assert.equal(a.next('001'), ids[0]);
  assert.equal(normalizeId(fixedId('00D', '1')), fixedId('00D', '1'));
});
