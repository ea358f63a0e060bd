import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` uniformly random base62 characters; ids made on every request may pass `pooledRandomBytes`. */
export function randomBase62(length: number, source: (size: number) => Buffer = randomBytes): string {
  let out = '';
  while (out.length < length) {
    const bytes = source(length * 2);
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const b = bytes[i] as number;
      // 248 = 4 × 62: bytes at or above it would favour the first characters.
      if (b < 248) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Encodes an unsigned integer in exactly `width` base62 characters (left-padded with 0). */
export function base62Fixed(n: number, width: number): string {
  let out = '';
  let v = n;
  for (let i = 0; i < width; i++) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}
