// A job's input as stored: its list in gzipped pages of INPUT_PAGE items beside the row, read back a
// page at a time; inputs stored whole by earlier versions are still read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { INPUT_PAGE, readInput, storedInput } from '../../src/jobs/stored-input.ts';
import type { BatchWrite } from '../../src/operations/writes.ts';
import { legacyInputText } from '../helpers/legacy-input.ts';

/** What the store keeps of one job, and the pages read back. */
function memoryJobs(row: { input: string; inputPages?: readonly Uint8Array[] | undefined }) {
  const pagesRead: number[] = [];
  return {
    pagesRead,
    jobs: {
      input: async (_id: string) => row.input,
      inputPage: async (_id: string, page: number) => {
        pagesRead.push(page);
        return row.inputPages?.[page];
      },
    },
  };
}

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ Name: `Acme ${i}`, Note: 'é ✓ 😀' }));

test('records are stored in pages of INPUT_PAGE beside the row and read back one page at a time, in order', async () => {
  const total = 2 * INPUT_PAGE + 7;
  const write: BatchWrite = {
    operation: 'insert',
    input: { objectName: 'Account', records: records(total), via: 'collections' },
  };
  const stored = await storedInput(write);
  assert.deepEqual(
    stored.inputPages?.map((p) => (JSON.parse(gunzipSync(p).toString('utf8')) as unknown[]).length),
    [INPUT_PAGE, INPUT_PAGE, 7],
    'each page gzipped JSON',
  );
  assert.ok(stored.input.length < 200, 'the row holds the input without its list');
  const { jobs, pagesRead } = memoryJobs(stored);
  assert.deepEqual(await readInput(jobs, { id: 'job_1', total }), write.input);
  assert.deepEqual(pagesRead, [0, 1, 2]);
});

test('ids and an empty list round-trip; an empty list has no pages', async () => {
  const ids = Array.from({ length: INPUT_PAGE + 1 }, (_, i) => `001${String(i).padStart(15, '0')}`);
  const del: BatchWrite = { operation: 'delete', input: { objectName: 'Account', ids, via: 'collections' } };
  const stored = await storedInput(del);
  assert.equal(stored.inputPages?.length, 2);
  assert.deepEqual(await readInput(memoryJobs(stored).jobs, { id: 'job_2', total: ids.length }), del.input);

  const none: BatchWrite = {
    operation: 'update',
    input: { objectName: 'Account', records: [], via: 'bulk2' },
  };
  const empty = await storedInput(none);
  assert.deepEqual(empty.inputPages, []);
  assert.deepEqual(await readInput(memoryJobs(empty).jobs, { id: 'job_3', total: 0 }), none.input);
});

test('a page that is not there fails the read instead of running the job with part of its input', async () => {
  const write: BatchWrite = {
    operation: 'insert',
    input: { objectName: 'Account', records: records(600), via: 'bulk2' },
  };
  const stored = await storedInput(write);
  const { jobs } = memoryJobs({ input: stored.input, inputPages: stored.inputPages?.slice(0, 1) });
  await assert.rejects(readInput(jobs, { id: 'job_4', total: 600 }), /job input page 1 missing/);
  await assert.rejects(readInput({ ...jobs, input: async () => null }, { id: 'gone', total: 1 }), /missing/);
});

test('inputs stored whole in the row by version 0.1.0 (gzipped JSON) are read', async () => {
  const insert = { objectName: 'Contact', records: records(1234), via: 'bulk2' };
  const del = { objectName: 'Contact', ids: ['003A', '003B'] };
  for (const format of ['gz'] as const) {
    for (const input of [insert, del]) {
      const { jobs, pagesRead } = memoryJobs({ input: legacyInputText(input, format) });
      const total = 'records' in input ? input.records.length : input.ids.length;
      assert.deepEqual(await readInput(jobs, { id: 'old', total }), input, format);
      assert.deepEqual(pagesRead, [], 'no pages are looked for');
    }
  }
});
