import { finished } from 'node:stream/promises';
import { type Options as ParseOptions, parse } from 'csv-parse';
import { type Options as StringifyOptions, stringify } from 'csv-stringify/sync';
import { LoopYielder } from './yield-to-loop.ts';

/** Rows written per call of the CSV writer, between checks of the yielder. */
const ROWS_PER_STEP = 100;
/** Characters handed to the CSV reader at a time, between checks of the yielder. */
const CHARS_PER_STEP = 32 * 1024;

/**
 * CSV of `rows`, written a few rows at a time with yields to the event loop: 10,000 rows of 800
 * characters take ~30 ms to write. Each record ends with its delimiter, so the parts join as is.
 */
export async function stringifyCsvYielding(
  rows: readonly unknown[][],
  options: StringifyOptions,
  yielder = new LoopYielder(),
): Promise<string> {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STEP) {
    if (yielder.due) await yielder.yielded();
    parts.push(stringify(rows.slice(i, i + ROWS_PER_STEP), options));
  }
  if (yielder.due) await yielder.yielded();
  return parts.join('');
}

/**
 * Rows of a CSV text, read in slices with yields to the event loop: csv-parse's stream parser keeps
 * a field cut between two slices. An 8 MB result file takes ~100 ms to read at once. Each slice is
 * parsed before the next is written (the write callback), so none pile up in the stream's buffer
 * to be parsed in one go.
 */
export async function parseCsvYielding(
  text: string,
  options: ParseOptions,
  yielder = new LoopYielder(),
): Promise<string[][]> {
  const rows: string[][] = [];
  const parser = parse(options);
  parser.on('data', (row: string[]) => rows.push(row));
  const done = finished(parser);
  // A parse error rejects `done` while a write is awaited: it is thrown from there.
  done.catch(() => undefined);
  for (let at = 0; at < text.length; at += CHARS_PER_STEP) {
    if (yielder.due) await yielder.yielded();
    const slice = text.slice(at, at + CHARS_PER_STEP);
    await new Promise<void>((resolve, reject) => parser.write(slice, (e) => (e ? reject(e) : resolve())));
  }
  parser.end();
  await done;
  return rows;
}
