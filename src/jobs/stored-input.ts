import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { BatchWrite } from '../operations/writes.ts';
import type { JobRow, NewJobRow, Store } from '../store/types.ts';

// A job's input as stored: the input without its list in the job's row, and the list in gzipped
// pages of INPUT_PAGE items (compressed on the thread pool; an eighth of the bytes).

/** Items per stored page. */
export const INPUT_PAGE = 250;
/** Marks a paged input, so that an earlier version fails such a job (not JSON) rather than run it empty. */
const PAGED = 'paged:';
/** How version 0.1.0 stored an input: `gz:` and base64 of the whole input's gzipped JSON. */
const GZIP = 'gz:';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The input's list: records (insert, update) or ids (delete). */
function listKey(input: object): 'records' | 'ids' {
  return 'records' in input ? 'records' : 'ids';
}

/** The write's input as `insert` stores it: the row's text and the list's pages. */
export async function storedInput(write: BatchWrite): Promise<Pick<NewJobRow, 'input' | 'inputPages'>> {
  const { input } = write;
  const key = listKey(input);
  const items: unknown[] = 'records' in input ? input.records : input.ids;
  const pages: Promise<Buffer>[] = [];
  for (let first = 0; first < items.length; first += INPUT_PAGE)
    pages.push(gzipAsync(JSON.stringify(items.slice(first, first + INPUT_PAGE))));
  return {
    input: `${PAGED}${JSON.stringify({ ...input, [key]: [] })}`,
    inputPages: await Promise.all(pages),
  };
}

/** A stored job's input, its `total` items read back page by page (or as version 0.1.0 stored it). */
export async function readInput(
  jobs: Pick<Store['jobs'], 'input' | 'inputPage'>,
  job: Pick<JobRow, 'id' | 'total'>,
): Promise<unknown> {
  const text = await jobs.input(job.id);
  if (text === null) throw new Error('job input missing');
  if (text.startsWith(GZIP))
    return JSON.parse((await gunzipAsync(Buffer.from(text.slice(GZIP.length), 'base64'))).toString('utf8'));
  const input = JSON.parse(text.slice(PAGED.length)) as Record<string, unknown>;
  const items: unknown[] = [];
  for (let page = 0; items.length < job.total; page++) {
    const body = await jobs.inputPage(job.id, page);
    if (body === undefined) throw new Error(`job input page ${page} missing`);
    for (const item of JSON.parse((await gunzipAsync(body)).toString('utf8')) as unknown[]) items.push(item);
  }
  input[listKey(input)] = items;
  return input;
}
