import { StringDecoder } from 'node:string_decoder';
import { LoopYielder } from './yield-to-loop.ts';

/** Bytes decoded between two checks of the yielder. */
const BYTES_PER_STEP = 256 * 1024;
/** Below this, one decode is quick enough not to be worth the slicing. */
const SMALL_BYTES = 256 * 1024;

/**
 * `bytes` as UTF-8 text, decoded in slices with yields to the event loop: 8 MiB of non-ASCII text
 * takes ~35 ms to decode at once. The StringDecoder keeps a character cut between two slices, and
 * replaces invalid bytes with U+FFFD exactly as `Buffer#toString` does.
 */
export async function decodeUtf8Yielding(bytes: Buffer, yielder = new LoopYielder()): Promise<string> {
  if (bytes.length < SMALL_BYTES) return bytes.toString('utf8');
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += BYTES_PER_STEP) {
    if (yielder.due) await yielder.yielded();
    parts.push(decoder.write(bytes.subarray(at, at + BYTES_PER_STEP)));
  }
  parts.push(decoder.end());
  return parts.join('');
}

/**
 * A response body's text, as undici's `body.text()` gives it (UTF-8, a leading BOM dropped), but
 * decoded in slices with yields to the event loop.
 */
export async function readTextYielding(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  const text = await decodeUtf8Yielding(Buffer.concat(chunks));
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
