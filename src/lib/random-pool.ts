import { randomFillSync } from 'node:crypto';

/**
 * Random bytes from a pool filled 4 KiB at a time (as Node's own randomUUID does): one call into
 * the CSPRNG per few hundred ids instead of one per id, on the path of every request. Each byte is
 * handed out once; the returned view is valid until the next call, so callers encode it at once.
 * For ids, not secrets: secrets take their bytes straight from `randomBytes`.
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
