import { StringDecoder } from 'node:string_decoder';
import { LoopYielder } from './yield-to-loop.ts';

/** Bytes decoded between two checks of the yielder. */
const BYTES_PER_STEP = 128 * 1024;
/** Below this many bytes (or characters), one decode or encode is quick enough not to be worth slicing. */
export const SLICED_FROM = 256 * 1024;

/**
 * `bytes` as UTF-8 text, decoded in slices with yields to the event loop: 8 MiB of non-ASCII text
 * takes ~35 ms to decode at once. The StringDecoder keeps a character cut between two slices (or
 * chunks), and replaces invalid bytes with U+FFFD exactly as `Buffer#toString` does.
 */
export async function decodeUtf8Yielding(
  bytes: Buffer | readonly Buffer[],
  yielder = new LoopYielder(),
): Promise<string> {
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
      if (yielder.due) await yielder.yielded();
      parts.push(decoder.write(chunk.subarray(at, at + BYTES_PER_STEP)));
    }
  }
  parts.push(decoder.end());
  // Joining copies the whole text (~10 ms for 8 MiB): it gets a slice of its own.
  if (yielder.due) await yielder.yielded();
  return parts.join('');
}

/**
 * A response body's text, as undici's `body.text()` gives it (UTF-8, a leading BOM dropped), but
 * decoded in slices with yields to the event loop.
 */
export async function readTextYielding(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  const text = await decodeUtf8Yielding(chunks);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Characters encoded between two checks of the yielder. */
const CHARS_PER_STEP = 128 * 1024;

/**
 * `text` as UTF-8 bytes, encoded in slices with yields to the event loop: `Buffer.from` of 8 MiB
 * of non-ASCII text is one block of ~40 ms. A slice never ends between the two halves of a
 * surrogate pair, so the bytes are exactly those `Buffer.from(text)` gives.
 */
export async function encodeUtf8Yielding(text: string, yielder = new LoopYielder()): Promise<Buffer> {
  if (text.length < SLICED_FROM) return Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(Buffer.byteLength(text, 'utf8'));
  let offset = 0;
  for (let at = 0; at < text.length; ) {
    if (yielder.due) await yielder.yielded();
    let end = Math.min(at + CHARS_PER_STEP, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    offset += out.write(text.slice(at, end), offset, 'utf8');
    at = end;
  }
  return out;
}
