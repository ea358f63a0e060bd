import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { yieldToLoop } from '../lib/yield-to-loop.ts';
import type { BatchWrite } from '../operations/writes.ts';
import type { JobRow, JobsRepository, NewJobRow } from '../store/types.ts';
import { legacyInput, listKey } from './legacy-input.ts';

// A job's input as the store keeps it: the input without its list (records or ids) in the job's
// row, and the list in pages of INPUT_PAGE items, each page's gzipped JSON a row of its own,
// stored with the job's row in one transaction. Read back a page at a time when the job starts
// after waiting its turn or is resumed by another instance. One page is stringified or parsed per
// turn of the event loop (a whole 8 MiB input in one piece held it for tens of ms); compressing
// runs on the thread pool. Gzipped, 10 000 records are 1.1 MiB instead of 8.7: on SQLite the
// commit writes (and the WAL checkpoint copies) every byte synchronously, ~0.2 s for plain JSON.

/** Items per stored page: a few hundred records are a few hundred KiB, a millisecond or two to parse. */
export const INPUT_PAGE = 250;
/**
 * Marks a row whose list is in pages. An instance of an earlier version that resumes such a job
 * fails it (not JSON) instead of running it with an empty list.
 */
const PAGED = 'paged:';

/**
 * Output bytes per round trip from the thread pool when a page is decompressed: zlib's default
 * (16 KiB) costs a callback and a copy on the event loop every 16 KiB, a third of the read.
 */
const PAGE_CHUNK = 256 * 1024;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The write's input as `insert` stores it: the row's text and the list's pages. */
export async function storedInput(write: BatchWrite): Promise<Pick<NewJobRow, 'input' | 'inputPages'>> {
  const { input } = write;
  const key = listKey(input);
  const items: unknown[] = 'records' in input ? input.records : input.ids;
  const pages: Buffer[] = [];
  for (let first = 0; first < items.length; first += INPUT_PAGE) {
    if (first > 0) await yieldToLoop();
    pages.push(await gzipAsync(JSON.stringify(items.slice(first, first + INPUT_PAGE))));
  }
  return { input: `${PAGED}${JSON.stringify({ ...input, [key]: [] })}`, inputPages: pages };
}

/** A stored job's input, its `total` items read back a page at a time (or as an earlier version stored it). */
export async function readInput(
  jobs: Pick<JobsRepository, 'input' | 'inputPage'>,
  job: Pick<JobRow, 'id' | 'total'>,
): Promise<unknown> {
  const text = await jobs.input(job.id);
  if (text === null) throw new Error('job input missing');
  if (!text.startsWith(PAGED)) return legacyInput(text);
  const input = JSON.parse(text.slice(PAGED.length)) as Record<string, unknown>;
  const items: unknown[] = [];
  for (let page = 0; items.length < job.total; page++) {
    // On SQLite a page is read synchronously: without a turn between pages they chain into one block.
    if (page > 0) await yieldToLoop();
    const body = await jobs.inputPage(job.id, page);
    if (body === undefined) throw new Error(`job input page ${page} missing`);
    const json = (await gunzipAsync(body, { chunkSize: PAGE_CHUNK })).toString('utf8');
    for (const item of JSON.parse(json) as unknown[]) items.push(item);
  }
  input[listKey(input)] = items;
  return input;
}
