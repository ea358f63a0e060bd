import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for ids (not secrets) from a 4 KiB pool, as randomUUID does: one CSPRNG call per few
 * hundred ids. The view is valid until the next call, so callers encode it at once.
 */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL.length) throw new RangeError('pooledRandomBytes: at most 4096 bytes');
  if (poolOffset + size > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const out = POOL.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return out;
}
