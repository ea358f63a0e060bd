import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gunzip } from 'node:zlib';
import { decodeUtf8Yielding } from '../lib/utf8-yielding.ts';
import { LoopYielder, yieldToLoop } from '../lib/yield-to-loop.ts';
import type { BatchWrite } from '../operations/writes.ts';

// A job's input as the store keeps it: written when the job is submitted, read back when it starts
// after waiting its turn or is resumed by another instance.

const gunzipAsync = promisify(gunzip);

/**
 * The input as gzipped JSON lines: the input with its list (records or ids) empty, then the list's
 * items 500 at a time, each slice a JSON array on a line of its own, stringified, encoded and
 * handed to the compressor (which runs on the thread pool) before the next: 10 000 records of a
 * full 8 MiB body joined into one string, encoded and compressed in one piece held the event loop
 * for tens of milliseconds. The compressed bytes are base64-encoded in slices too. Read back
 * (`parseInput`), each line is parsed on its own, with turns of the event loop between.
 */
export async function inputText(write: BatchWrite): Promise<string> {
  const { input } = write;
  const key = 'records' in input ? 'records' : 'ids';
  const items: unknown[] = 'records' in input ? input.records : input.ids;
  const gz = createGzip();
  const packed: Buffer[] = [];
  gz.on('data', (chunk: Buffer) => packed.push(chunk));
  const done = finished(gz);
  done.catch(() => undefined);
  const put = (text: string) =>
    new Promise<void>((resolve, reject) => gz.write(text, 'utf8', (e) => (e ? reject(e) : resolve())));
  // JSON.stringify never writes a raw line break: one line is one JSON text.
  await put(`${JSON.stringify({ ...input, [key]: [] })}\n`);
  for (let i = 0; i < items.length; i += INPUT_SLICE) {
    if (i > 0) await yieldToLoop();
    await put(`${JSON.stringify(items.slice(i, i + INPUT_SLICE))}\n`);
  }
  gz.end();
  await done;
  return `${GZIP_LINES_PREFIX}${await base64Yielding(packed)}`;
}

/** Items stringified, encoded and compressed at a time when storing a job's input. */
const INPUT_SLICE = 500;
/**
 * The compressed chunks as one base64 text, without first concatenating them: each chunk is
 * encoded as it is, up to a multiple of 3 bytes (so the pieces join without padding between), and
 * its last one or two bytes are carried into the next.
 */
async function base64Yielding(chunks: readonly Buffer[]): Promise<string> {
  const yielder = new LoopYielder();
  const parts: string[] = [];
  let carry = Buffer.alloc(0);
  for (const chunk of chunks) {
    if (yielder.due) await yielder.yielded();
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const whole = bytes.length - (bytes.length % 3);
    parts.push(bytes.subarray(0, whole).toString('base64'));
    carry = Buffer.from(bytes.subarray(whole));
  }
  parts.push(carry.toString('base64'));
  if (yielder.due) await yielder.yielded();
  return parts.join('');
}

/** Gzipped JSON lines (`inputText`). */
const GZIP_LINES_PREFIX = 'gzl:';
/** Gzipped JSON in one text, as jobs stored by earlier versions hold it. */
const GZIP_PREFIX = 'gz:';

/**
 * A stored input, read back when a job starts after waiting its turn or is resumed. Lines are
 * parsed one at a time, yielding to the event loop between slices of work (a whole 8 MiB input
 * parsed at once blocks it for tens of milliseconds).
 */
export async function parseInput(text: string): Promise<unknown> {
  if (text.startsWith(GZIP_LINES_PREFIX)) {
    const bytes = await gunzipAsync(Buffer.from(text.slice(GZIP_LINES_PREFIX.length), 'base64'));
    const yielder = new LoopYielder();
    const lines = (await decodeUtf8Yielding(bytes, yielder)).split('\n');
    const input = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    const key = 'records' in input ? 'records' : 'ids';
    const items: unknown[] = [];
    for (let k = 1; k < lines.length; k++) {
      if (yielder.due) await yielder.yielded();
      const line = lines[k] as string;
      if (line !== '') for (const item of JSON.parse(line) as unknown[]) items.push(item);
    }
    input[key] = items;
    return input;
  }
  const json = text.startsWith(GZIP_PREFIX)
    ? (await gunzipAsync(Buffer.from(text.slice(GZIP_PREFIX.length), 'base64'))).toString('utf8')
    : text;
  await yieldToLoop();
  return JSON.parse(json);
}
