import { randomFillSync } from 'node:crypto';

/** Random bytes for ids (not secrets) from a 4 KiB pool; the view is valid until the next call. */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

export function pooledRandomBytes(size: number): Buffer {
  if (poolOffset + size > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const out = POOL.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return out;
}
