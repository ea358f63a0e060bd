import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { retrying } from '../../lib/retry.ts';
import { parseJson } from '../client/types.ts';
import { CrmError, crmErrorFromResponse } from '../errors.ts';
import type { WriteJournal, WriteOperation } from './collections.ts';
import { describeGlobal } from './describe.ts';
import { toCsv } from './format.ts';
import {
  cancelledResult,
  failedCallEntry,
  failure,
  malformedId,
  type Org,
  type OrgRequest,
  send,
} from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

interface JobInfo {
  id: string;
  state: string;
  errorMessage?: string;
  numberRecordsProcessed?: number;
  numberRecordsFailed?: number;
}

/** The journal entry: the CRM job id, written right after the job was created (before the upload). */
interface BulkEntry {
  jobId: string;
  at: string;
}

type BulkJournal = WriteJournal & { part: string; key: string };

const TERMINAL = new Set(['JobComplete', 'Failed', 'Aborted']);

/** One Bulk API 2.0 ingest job: create, upload the CSV, close, poll, read the result files. */
export async function bulkWrite(
  org: Org,
  operation: WriteOperation,
  objectName: string,
  header: string[],
  rows: string[][],
  write?: WriteJournal,
): Promise<SaveResult[]> {
  const base = `${org.api}/jobs/ingest`;
  // The journal key names the object: a delete runs one job per object.
  const part = `bulk:${objectName}`;
  const journal: BulkJournal | undefined = write && { ...write, part, key: `${write.scope}:${part}` };
  if (journal !== undefined) {
    const earlier = await resumeEarlierJob(org, base, rows, journal);
    if (earlier !== undefined) return earlier;
  }
  const created = await call(org, 'createJob', {
    method: 'POST',
    url: base,
    json: { object: objectName, operation, contentType: 'CSV', lineEnding: 'LF' },
    idempotent: false,
  });
  const job = parseJson<JobInfo>(created);
  if (created.status >= 300 || typeof job?.id !== 'string') {
    throw crmErrorFromResponse('salesforce', created, 'bulk job create');
  }
  const jobUrl = `${base}/${encodeURIComponent(job.id)}`;
  if (journal !== undefined) {
    const at = new Date(org.clock.now()).toISOString();
    await journal.hook.journal.set(journal.key, { jobId: job.id, at } satisfies BulkEntry);
    await journal.hook.crmJob(job.id);
  }
  try {
    // A job runs only once closed: aborting it after a failed upload writes none of its rows.
    const uploaded = await call(org, 'upload', {
      method: 'PUT',
      url: `${jobUrl}/batches`,
      headers: { 'content-type': 'text/csv', accept: 'application/json' },
      body: () => toCsv(header, rows),
      idempotent: false,
    });
    if (uploaded.status >= 300) throw crmErrorFromResponse('salesforce', uploaded, 'bulk upload');
  } catch (error) {
    await abort(org, jobUrl);
    throw error;
  }
  if (journal?.hook.signal.aborted === true) {
    // Cancelled before the job was closed: it never runs.
    await abort(org, jobUrl);
    return rows.map(cancelledResult);
  }
  await closeJob(org, jobUrl);
  return follow(org, jobUrl, job.id, rows, journal);
}

/** Bulk deletes, one job per object (from the ids' key prefixes); one object's failed job fails only its own ids. */
export async function bulkDelete(org: Org, ids: string[], journal?: WriteJournal): Promise<SaveResult[]> {
  const global = await describeGlobal(org);
  const byPrefix = new Map(global.sobjects.filter((o) => o.keyPrefix).map((o) => [o.keyPrefix, o.name]));
  const results: SaveResult[] = new Array(ids.length);
  const groups = new Map<string, number[]>();
  ids.forEach((id, i) => {
    const object = SALESFORCE_PROFILE.idPattern.test(id) ? byPrefix.get(id.slice(0, 3)) : undefined;
    if (object === undefined) results[i] = malformedId(id);
    else if (groups.has(object)) groups.get(object)?.push(i);
    else groups.set(object, [i]);
  });
  // A failed job fails its own ids; the request fails as a whole only when every job failed.
  const failures: unknown[] = [];
  await Promise.all(
    [...groups].map(async ([object, indexes]) => {
      const rows = indexes.map((i) => [ids[i] as string]);
      const got = await bulkWrite(org, 'delete', object, ['Id'], rows, journal).catch((error: unknown) => {
        failures.push(error);
        const entry = failedCallEntry(error, 'bulk delete');
        return rows.map((): SaveResult => ({ success: false, errors: [entry] }));
      });
      indexes.forEach((i, k) => {
        results[i] = got[k] ?? { success: false, errors: [] };
      });
    }),
  );
  if (failures.length > 0 && failures.length === groups.size) throw failures[0];
  return results;
}

/** A re-run follows the first run's job; one still Open never ran: it is aborted to start over (undefined). */
async function resumeEarlierJob(
  org: Org,
  base: string,
  rows: string[][],
  journal: BulkJournal,
): Promise<SaveResult[] | undefined> {
  const entry = (await journal.hook.journal.get(journal.key)) as BulkEntry | undefined;
  if (entry !== undefined) {
    const jobUrl = `${base}/${encodeURIComponent(entry.jobId)}`;
    const state = await jobState(org, jobUrl, true);
    if (state === undefined) return rows.map(() => unknownResult(entry.jobId, 'its state could not be read'));
    if (state.state !== 'Open') return follow(org, jobUrl, entry.jobId, rows, journal);
    await abort(org, jobUrl);
  }
  return journal.hook.signal.aborted ? rows.map(cancelledResult) : undefined;
}

/** Closes the job (UploadComplete) so that it runs; a close that cannot be confirmed aborts it. */
async function closeJob(org: Org, jobUrl: string): Promise<void> {
  const closed = await call(org, 'close', {
    method: 'PATCH',
    url: jobUrl,
    json: { state: 'UploadComplete' },
    // Closing twice cannot run the job twice (the second answers InvalidJobState), so it is resent.
    idempotent: true,
  }).catch(() => undefined);
  if (closed === undefined || closed.status >= 300) {
    // The close may have gone through (lost answer, resend refused): still Open, the job is aborted.
    const state = await jobState(org, jobUrl, false);
    if (state === undefined || state.state === 'Open') {
      await abort(org, jobUrl);
      if (closed !== undefined) throw crmErrorFromResponse('salesforce', closed, 'bulk close');
      throw new CrmError('salesforce', 'unreachable', 'bulk close: no answer; the job was aborted');
    }
  }
}

const unknownResult = (jobId: string, why: string): SaveResult =>
  failure(
    'CRM_PROXY_OUTCOME_UNKNOWN',
    `Bulk API job ${jobId} was submitted, but ${why}. Check the job in Salesforce before sending these records again.`,
  );

/** Polls a closed job to its end and reads its results back onto the input rows. */
async function follow(
  org: Org,
  jobUrl: string,
  jobId: string,
  rows: string[][],
  journal: BulkJournal | undefined,
): Promise<SaveResult[]> {
  // The job runs anyway: failing to follow it is answered per record, never as a resendable request error.
  let info: JobInfo;
  const results: Array<SaveResult | undefined> = new Array(rows.length);
  try {
    // While Salesforce works, the connection's next job takes this write's turn.
    const wait = () => waitForJob(org, jobUrl, journal);
    info = await (journal?.hook.away(wait) ?? wait());
    await readResults(org, jobUrl, rows, results);
  } catch (error) {
    const why = `its results could not be read (${error instanceof Error ? error.message : 'error'})`;
    return rows.map(() => unknownResult(jobId, why));
  }
  // Anything else was not processed (job failed, aborted, or timed out): say why.
  // One object per row: results may be amended one by one downstream.
  const missing = () =>
    info.state === 'JobComplete'
      ? failure('CRM_PROXY_OUTCOME_UNKNOWN', 'Salesforce reported no result for this record.')
      : failure(
          'UNPROCESSED',
          `Salesforce did not process this record: the Bulk API job ${jobId} ended ${info.state}${info.errorMessage ? ` (${info.errorMessage})` : ''}.`,
        );
  // Array.from, not map: rows without a result are holes, which map would leave as holes.
  return Array.from(results, (r) => r ?? missing());
}

/**
 * Result rows (`sf__Id`, `sf__Created`/`sf__Error`, echoed cells) onto the input rows with those cells:
 * result files are unordered and take no row-number column; identical rows are interchangeable.
 */
async function readResults(
  org: Org,
  jobUrl: string,
  rows: string[][],
  results: Array<SaveResult | undefined>,
): Promise<void> {
  const unmatched = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const key = JSON.stringify(row);
    const queue = unmatched.get(key);
    if (queue === undefined) unmatched.set(key, [i]);
    else queue.push(i);
  });
  for (const success of [true, false]) {
    let got: string[][] = [];
    const response = await call(org, 'results', {
      method: 'GET',
      url: `${jobUrl}/${success ? 'successful' : 'failed'}Results/`,
      headers: { accept: 'text/csv' },
      idempotent: true,
      // Collected per attempt and matched after: a retried read starts again from the first row.
      read: async (body) => {
        got = [];
        await pipeline(body, parse({ relax_column_count: true }), async (parsed: AsyncIterable<string[]>) => {
          for await (const row of parsed) got.push(row);
        });
      },
    });
    if (response.status !== 200) throw crmErrorFromResponse('salesforce', response, 'bulk results');
    // The first row is the header.
    for (const row of got.slice(1)) {
      const index = unmatched.get(JSON.stringify(row.slice(2)))?.shift();
      if (index === undefined) continue;
      const id = row[0] ?? '';
      const errors = success ? [] : [parseBulkError(row[1] ?? '')];
      results[index] = id === '' ? { success, errors } : { id, success, errors };
    }
  }
}

/** `STATUS_CODE:message:field1,field2 --` → an error entry; the message may hold colons. */
export function parseBulkError(text: string): RecordError {
  const trimmed = text.replace(/\s*--\s*$/, '');
  const m = /^([^:]*):(.*?)(?::([^:]*))?$/s.exec(trimmed);
  if (m === null) return { statusCode: 'UNKNOWN_EXCEPTION', message: trimmed, fields: [] };
  const [, statusCode = '', message = '', fields = ''] = m;
  return { statusCode, message, fields: fields === '' ? [] : fields.split(',') };
}

/** Wait before the next poll (×1.5 from `firstMs` up to `maxMs`), or undefined once over or past the deadline. */
export function nextPoll(
  state: string,
  poll: number,
  startedAt: number,
  now: number,
  p: { firstMs: number; maxMs: number; timeoutMs: number } = SALESFORCE_PROFILE.bulkPoll,
): number | undefined {
  if (TERMINAL.has(state) || now - startedAt > p.timeoutMs) return undefined;
  return Math.min(p.firstMs * 1.5 ** poll, p.maxMs);
}

async function waitForJob(org: Org, jobUrl: string, journal?: BulkJournal): Promise<JobInfo> {
  const { clock } = org;
  let abortSent = false;
  const startedAt = clock.now();
  // The job has just been closed: it is never done at once, so the first look waits too.
  await clock.sleep(nextPoll('Open', 0, startedAt, startedAt) ?? 0);
  const info = await retrying(clock, {
    attempt: async () => {
      const response = await call(org, 'getJob', { method: 'GET', url: jobUrl, idempotent: true });
      const found = parseJson<JobInfo>(response);
      if (response.status !== 200 || found === undefined) {
        throw crmErrorFromResponse('salesforce', response, 'bulk job status');
      }
      journal?.report(journal.part, found.numberRecordsProcessed ?? 0, found.numberRecordsFailed ?? 0);
      if (journal?.hook.signal.aborted === true && !abortSent && !TERMINAL.has(found.state)) {
        // Cancelled while it runs: Salesforce stops it; what it processed keeps its results.
        abortSent = true;
        await abort(org, jobUrl);
      }
      return found;
    },
    next: (found, n) => nextPoll(found.state, n, startedAt, clock.now()),
  });
  if (TERMINAL.has(info.state)) return info;
  await abort(org, jobUrl);
  return { ...info, state: 'Aborted', errorMessage: 'the service stopped waiting for the job' };
}

/** The job's state; undefined when it cannot be read (or, with `ok`, when not answered 200). */
function jobState(org: Org, jobUrl: string, ok: boolean): Promise<JobInfo | undefined> {
  return call(org, 'getJob', { method: 'GET', url: jobUrl, idempotent: true })
    .then((r) => (ok && r.status !== 200 ? undefined : parseJson<JobInfo>(r)))
    .catch(() => undefined);
}

async function abort(org: Org, jobUrl: string): Promise<void> {
  await call(org, 'abort', {
    method: 'PATCH',
    url: jobUrl,
    json: { state: 'Aborted' },
    idempotent: true,
  }).catch(() => undefined);
}

function call(org: Org, step: string, request: OrgRequest) {
  return send(org, `bulk ${step}`, `bulk2.${step}`, request);
}
