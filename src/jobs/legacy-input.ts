import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { decodeUtf8Yielding } from '../lib/utf8-yielding.ts';
import { yieldToLoop } from '../lib/yield-to-loop.ts';

// Inputs as earlier versions stored them, whole, in the job's row: read only for their jobs still
// unfinished after an upgrade (a finished job's input is never read again).

const gunzipAsync = promisify(gunzip);

/** The input's list: records (insert, update) or ids (delete). */
export function listKey(input: object): 'records' | 'ids' {
  return 'records' in input ? 'records' : 'ids';
}

/**
 * `gzl:` and base64 of gzipped JSON lines (the input with its list empty, then slices of the
 * list, a JSON array a line); `gz:` and base64 of gzipped JSON; or JSON.
 */
export async function legacyInput(text: string): Promise<unknown> {
  const lines = text.startsWith('gzl:');
  if (!lines && !text.startsWith('gz:')) {
    await yieldToLoop();
    return JSON.parse(text);
  }
  const bytes = await gunzipAsync(Buffer.from(text.slice(lines ? 4 : 3), 'base64'));
  const json = await decodeUtf8Yielding(bytes);
  await yieldToLoop();
  if (!lines) return JSON.parse(json);
  const [head = '{}', ...slices] = json.split('\n');
  const input = JSON.parse(head) as Record<string, unknown>;
  const items: unknown[] = [];
  for (const slice of slices) {
    if (slice === '') continue;
    await yieldToLoop();
    for (const item of JSON.parse(slice) as unknown[]) items.push(item);
  }
  input[listKey(input)] = items;
  return input;
}
