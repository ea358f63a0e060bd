// The copy a pass-through keeps for a 401 replay: bytes come back whole whatever the chunk sizes,
// slabs return to their pool, and a pool that ran dry falls back to holding chunks.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ReplayCopy, SLAB_BYTES, SlabPool } from '../../src/proxy/replay-copy.ts';

/** Chunks of awkward sizes: smaller than, equal to and larger than a slab, straddling its edges. */
function chunksOf(body: Buffer): Buffer[] {
  const sizes = [1, SLAB_BYTES - 1, 2, SLAB_BYTES, 3 * SLAB_BYTES + 7, 100, SLAB_BYTES / 2];
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < body.length; i += 1) {
    const size = sizes[i % sizes.length] as number;
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

test('the body comes back byte for byte, across slab edges', () => {
  const pool = new SlabPool(64 * SLAB_BYTES);
  const body = randomBytes(7 * SLAB_BYTES + 12_345);
  const copy = new ReplayCopy(pool);
  for (const chunk of chunksOf(body)) copy.add(chunk);
  assert.equal(copy.length, body.length);
  assert.ok(copy.bytes().equals(body));
  assert.equal(pool.allocated, 8);
});

test('the copy does not alias the chunks: a reused socket buffer cannot change it', () => {
  const pool = new SlabPool(4 * SLAB_BYTES);
  const chunk = Buffer.from('{"Name":"first"}');
  const copy = new ReplayCopy(pool);
  copy.add(chunk);
  chunk.fill(0x20);
  assert.equal(copy.bytes().toString(), '{"Name":"first"}');
});

test('released slabs go back to the pool and the next body reuses them', () => {
  const pool = new SlabPool(8 * SLAB_BYTES);
  const first = new ReplayCopy(pool);
  first.add(randomBytes(3 * SLAB_BYTES));
  first.release();
  assert.equal(first.length, 0);
  assert.deepEqual({ allocated: pool.allocated, free: pool.free }, { allocated: 3, free: 3 });

  const body = randomBytes(2 * SLAB_BYTES + 1);
  const second = new ReplayCopy(pool);
  second.add(body);
  assert.deepEqual({ allocated: pool.allocated, free: pool.free }, { allocated: 3, free: 0 });
  assert.ok(second.bytes().equals(body));
  second.release();
  second.release();
  assert.equal(pool.free, 3, 'a second release gives nothing back twice');
});

test('a pool that ran dry: the rest of the body is held as chunks and still comes back whole', () => {
  const pool = new SlabPool(2 * SLAB_BYTES);
  const body = randomBytes(5 * SLAB_BYTES + 99);
  const copy = new ReplayCopy(pool);
  for (const chunk of chunksOf(body)) copy.add(chunk);
  assert.equal(pool.allocated, 2);
  assert.ok(copy.bytes().equals(body));
  copy.release();
  assert.equal(pool.free, 2);
});
