// The copy a pass-through keeps for a 401 replay: bytes come back whole whatever the chunk sizes,
// every reserved byte returns to the instance's budget, and a spent budget refuses the copy.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ReplayBudget, ReplayCopy, SEGMENT_BYTES } from '../../src/proxy/replay-copy.ts';

/** Chunks of awkward sizes: smaller than, equal to and larger than a segment, straddling its edges. */
function chunksOf(body: Buffer): Buffer[] {
  const sizes = [1, SEGMENT_BYTES - 1, 2, SEGMENT_BYTES, 3 * SEGMENT_BYTES + 7, 100, SEGMENT_BYTES / 2];
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < body.length; i += 1) {
    const size = sizes[i % sizes.length] as number;
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

test('the body comes back byte for byte, across segment edges', () => {
  const budget = new ReplayBudget(64 * SEGMENT_BYTES);
  const body = randomBytes(7 * SEGMENT_BYTES + 12_345);
  const chunked = new ReplayCopy(budget);
  for (const chunk of chunksOf(body)) assert.equal(chunked.add(chunk), true);
  assert.equal(chunked.length, body.length);
  assert.ok(chunked.bytes().equals(body));
  assert.equal(budget.used, 8 * SEGMENT_BYTES);
});

test('the copy does not alias the chunks: a reused socket buffer cannot change it', () => {
  const budget = new ReplayBudget(4 * SEGMENT_BYTES);
  const chunk = Buffer.from('{"Name":"first"}');
  const copy = new ReplayCopy(budget);
  copy.add(chunk);
  chunk.fill(0x20);
  assert.equal(copy.bytes().toString(), '{"Name":"first"}');
});

test('released bytes go back to the budget, once', () => {
  const budget = new ReplayBudget(8 * SEGMENT_BYTES);
  const first = new ReplayCopy(budget);
  first.add(randomBytes(3 * SEGMENT_BYTES));
  assert.equal(budget.used, 3 * SEGMENT_BYTES);
  first.release();
  assert.equal(first.length, 0);
  assert.equal(budget.used, 0);
  first.release();
  assert.equal(budget.used, 0, 'a second release gives nothing back twice');
});

test('a spent budget refuses the copy; what a refused copy reserved comes back on release', () => {
  const budget = new ReplayBudget(3 * SEGMENT_BYTES);
  const holder = new ReplayCopy(budget);
  assert.equal(holder.add(randomBytes(SEGMENT_BYTES + 1)), true);
  assert.equal(budget.used, 2 * SEGMENT_BYTES);
  const other = new ReplayCopy(budget);
  assert.equal(other.add(randomBytes(SEGMENT_BYTES)), true);
  assert.equal(other.add(Buffer.from('one byte too many')), false);
  other.release();
  holder.release();
  assert.equal(budget.used, 0);
});
