import { StringDecoder } from 'node:string_decoder';
import { sliceUsed, yieldToLoop } from './yield-to-loop.ts';

/** Bytes decoded between two checks of the slice. */
const BYTES_PER_STEP = 128 * 1024;
/** Below this many bytes, one decode is quick enough not to be worth slicing. */
const SLICED_FROM = 256 * 1024;
/** Characters encoded between two checks of the slice (~2 ms of non-ASCII text). */
const CHARS_PER_STEP = 256 * 1024;

/**
 * `bytes` as UTF-8 text, decoded in slices with yields to the event loop: 8 MiB of non-ASCII text
 * takes ~35 ms to decode at once. The StringDecoder keeps a character cut between two slices (or
 * chunks), and replaces invalid bytes with U+FFFD exactly as `Buffer#toString` does.
 */
export async function decodeUtf8Yielding(bytes: Buffer | readonly Buffer[]): Promise<string> {
  const chunks = Buffer.isBuffer(bytes) ? [bytes] : bytes;
  const total = chunks.reduce((n, c) => n + c.length, 0);
  if (total < SLICED_FROM)
    return chunks.length === 1
      ? (chunks[0] as Buffer).toString('utf8')
      : Buffer.concat(chunks).toString('utf8');
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += BYTES_PER_STEP) {
      if (sliceUsed()) await yieldToLoop();
      parts.push(decoder.write(chunk.subarray(at, at + BYTES_PER_STEP)));
    }
  }
  parts.push(decoder.end());
  // Joining copies the whole text (~10 ms for 8 MiB): it gets a slice of its own.
  if (sliceUsed()) await yieldToLoop();
  return parts.join('');
}

/**
 * `text` as UTF-8 bytes, encoded in slices with yields to the event loop: 8 MiB of non-ASCII text
 * takes ~25 ms to encode at once. A slice never ends between the two halves of a surrogate pair,
 * so the bytes are those of `Buffer.from(text, 'utf8')` (a lone surrogate becomes U+FFFD in both).
 */
export async function encodeUtf8Yielding(text: string): Promise<Buffer> {
  if (text.length < SLICED_FROM) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let at = 0; at < text.length; ) {
    if (sliceUsed()) await yieldToLoop();
    let end = Math.min(at + CHARS_PER_STEP, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(Buffer.from(text.slice(at, end), 'utf8'));
    at = end;
  }
  // Joining copies the whole body (a few ms for 8 MiB): it gets a slice of its own.
  if (sliceUsed()) await yieldToLoop();
  return Buffer.concat(parts);
}
