import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import { positionsWhere } from '../../lib/positions.ts';
import type { CrmSession } from '../adapter.ts';
import { OutboundNetworkError, parseJson } from '../client/types.ts';
import { CrmError, crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import { JournalSteps } from '../journal-steps.ts';
import type { PreparedRecord, RecordError, SaveOperation, SaveResult, WriteJournal } from './facet.ts';
import { toCollectionsRecord } from './format.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** One call's records failed as a whole: each gets this entry, and the call's error is kept. */
export interface ChunkFailure {
  error: unknown;
}

/** Finds what interrupted insert calls created (reconcile.ts); per position a result or undefined (send it). */
export type Reconciler = (
  calls: Array<{ records: PreparedRecord[]; since: string }>,
  claimed: ReadonlySet<string>,
) => Promise<Array<Array<SaveResult | undefined>>>;

/** Looks up the records of a call whose answer was lost; per position a result, or undefined (unknown). */
export type Recovery = (records: PreparedRecord[]) => Promise<Array<SaveResult | undefined>>;

/** The entry of a record a cancelled job never sent. */
export function cancelledResult(): SaveResult {
  return {
    success: false,
    errors: [
      {
        statusCode: 'CRM_PROXY_CANCELLED',
        message: 'The job was cancelled before this record was sent; nothing was written for it.',
        fields: [],
      },
    ],
  };
}

const failedCount = (results: SaveResult[]) => results.filter((r) => !r.success).length;

/**
 * sObject Collections create/update/delete, 200 records per call, `allOrNone=false`, calls in
 * parallel under the connection's limiter. Never resent after a timeout, a dropped connection or
 * a 5xx (the client's `decide()`): Salesforce may have applied the call, and a resent create would
 * write the records twice. Those records are answered failed with an entry saying so, unless
 * `recover` finds them (an insert whose answer was lost, looked up by an external id).
 *
 * In a job, each call is journaled before it is sent (`sending`, with the time) and after
 * (`done`, with its results). A re-run reuses answered calls; a call marked `sending` may have
 * reached Salesforce: an update or delete is sent again (same values, same outcome), an insert is
 * first reconciled (what it created is found and answered; only the rest is sent again).
 */
export async function collectionsWrite(
  session: CrmSession,
  limiter: ConcurrencyLimiter,
  apiVersion: string,
  operation: SaveOperation | 'delete',
  objectName: string | null,
  items: PreparedRecord[] | string[],
  journal?: WriteJournal,
  reconcile?: Reconciler,
  recover?: Recovery,
): Promise<{ results: SaveResult[]; failures: ChunkFailure[] }> {
  const size = SALESFORCE_PROFILE.collectionsMaxRecords;
  const results: SaveResult[] = new Array(items.length);
  const failures: ChunkFailure[] = [];
  const starts: number[] = [];
  for (let start = 0; start < items.length; start += size) starts.push(start);
  const keyOf = (start: number) => `${journal?.scope}:collections:${operation}:${start}`;

  const steps = new JournalSteps<SaveResult[]>(journal?.hook, journal && (() => journal.now()));
  const { known, sentAt } = await earlierRuns(steps, starts, keyOf, operation, items, journal, reconcile);

  const calls = starts.map((start) =>
    limiter.run(async () => {
      const chunk = items.slice(start, start + size);
      const settled = known.get(start) ?? [];
      const open = positionsWhere<unknown>(chunk, (_, i) => settled[i] === undefined);
      // Records left without an entry (a job cancelled before the call) get the cancelled one below.
      const answered: Array<SaveResult | undefined> = chunk.map((_, i) => settled[i]);
      const send = open.length > 0 && journal?.hook.signal.aborted !== true;
      if (send) {
        // The earliest send time is kept: a later reconciliation must look back to the first send.
        await steps.sending(keyOf(start), sentAt.get(start));
        const sending = open.map((i) => chunk[i]) as PreparedRecord[] | string[];
        let got: SaveResult[];
        try {
          got = await oneCall(session, apiVersion, operation, objectName, sending);
        } catch (error) {
          failures.push({ error });
          const entry = failedCallEntry(error, operation);
          // An insert whose answer was lost: what Salesforce holds now says, for records it can find.
          const found =
            operation === 'insert' && recover !== undefined && mayHaveApplied(error)
              ? await recover(sending as PreparedRecord[])
              : [];
          got = sending.map((_, k) => found[k] ?? { success: false, errors: [entry] });
        }
        open.forEach((i, k) => {
          answered[i] = got[k] ?? { success: false, errors: [] };
        });
      }
      for (let i = 0; i < answered.length; i++) answered[i] ??= cancelledResult();
      const final = answered as SaveResult[];
      // Done once sent, or once reconciliation settled every record of an interrupted call.
      if (send || (open.length === 0 && settled.length > 0 && sentAt.has(start))) {
        await steps.done(keyOf(start), final);
      }
      final.forEach((r, k) => {
        results[start + k] = r;
      });
      journal?.report(`c${start}`, final.length, failedCount(final));
    }),
  );
  await Promise.all(calls);
  return { results, failures };
}

/**
 * What earlier runs of a job left: answered calls, and the positions of interrupted inserts that
 * reconciliation settled (the records it found the call had created).
 */
async function earlierRuns(
  steps: JournalSteps<SaveResult[]>,
  starts: number[],
  keyOf: (start: number) => string,
  operation: SaveOperation | 'delete',
  items: PreparedRecord[] | string[],
  journal: WriteJournal | undefined,
  reconcile: Reconciler | undefined,
): Promise<{ known: Map<number, Array<SaveResult | undefined>>; sentAt: Map<number, string> }> {
  const size = SALESFORCE_PROFILE.collectionsMaxRecords;
  const known = new Map<number, Array<SaveResult | undefined>>();
  const sentAt = new Map<number, string>();
  if (journal === undefined) return { known, sentAt };
  const entries = await Promise.all(starts.map((s) => steps.state(keyOf(s))));
  const interrupted: number[] = [];
  const claimed = new Set<string>();
  entries.forEach((entry, k) => {
    const start = starts[k] as number;
    if (entry.kind === 'done') {
      known.set(start, entry.results);
      for (const r of entry.results) if (r.id != null) claimed.add(r.id);
      journal.report(`c${start}`, entry.results.length, failedCount(entry.results));
    } else if (entry.kind === 'interrupted') {
      sentAt.set(start, entry.since ?? '');
      if (operation === 'insert') interrupted.push(start);
    }
  });
  if (interrupted.length > 0) {
    const calls = interrupted.map((start) => ({
      records: (items as PreparedRecord[]).slice(start, start + size),
      since: sentAt.get(start) as string,
    }));
    const found = reconcile
      ? await reconcile(calls, claimed)
      : calls.map((c) => c.records.map(() => undefined));
    interrupted.forEach((start, k) => {
      known.set(start, found[k] ?? []);
    });
  }
  return { known, sentAt };
}

async function oneCall(
  session: CrmSession,
  apiVersion: string,
  operation: SaveOperation | 'delete',
  objectName: string | null,
  chunk: PreparedRecord[] | string[],
): Promise<SaveResult[]> {
  const base = `${session.baseUrl}${SALESFORCE_PROFILE.dataPath(apiVersion)}/composite/sobjects`;
  const request =
    operation === 'delete'
      ? {
          method: 'DELETE' as const,
          url: `${base}?ids=${(chunk as string[]).map(encodeURIComponent).join(',')}&allOrNone=false`,
        }
      : {
          method: operation === 'insert' ? ('POST' as const) : ('PATCH' as const),
          url: base,
          body: JSON.stringify({
            allOrNone: false,
            records: (chunk as PreparedRecord[]).map((r) => toCollectionsRecord(objectName ?? '', r)),
          }),
        };
  const response = await unreachableAsCrmError('salesforce', `collections ${operation}`, () =>
    session.send({
      ...request,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      // A write: resent only when the connection never opened (see decide()).
      idempotent: false,
      label: `salesforce.collections.${operation}`,
    }),
  );
  const body = parseJson<SaveResult[]>(response);
  if (response.status !== 200 || !Array.isArray(body) || body.length !== chunk.length) {
    throw crmErrorFromResponse('salesforce', response, `collections ${operation}`);
  }
  return body.map(normalizeResult);
}

/** Salesforce's entry as is, with `id` omitted rather than null on failures. */
export function normalizeResult(r: SaveResult & { id?: string | null }): SaveResult {
  const errors = Array.isArray(r.errors) ? r.errors.map(normalizeError) : [];
  return typeof r.id === 'string' && r.id !== ''
    ? { id: r.id, success: r.success === true, errors }
    : { success: r.success === true, errors };
}

function normalizeError(e: Partial<RecordError> & { errorCode?: string }): RecordError {
  return {
    statusCode: String(e.statusCode ?? e.errorCode ?? 'UNKNOWN_EXCEPTION'),
    message: String(e.message ?? ''),
    fields: Array.isArray(e.fields) ? e.fields.map(String) : [],
  };
}

/** True when a failed call got no answer after it was sent (timeout, dropped connection). */
export function mayHaveApplied(error: unknown): boolean {
  if (!(error instanceof CrmError) || error.kind !== 'unreachable') return false;
  return !(error.cause instanceof OutboundNetworkError && error.cause.kind === 'connect_failed');
}

/** The entry given to each record of a call that failed as a whole. */
export function failedCallEntry(error: unknown, operation: string): RecordError {
  if (error instanceof CrmError && error.kind === 'unreachable' && !mayHaveApplied(error)) {
    return {
      statusCode: 'CRM_PROXY_NOT_SENT',
      message: `The ${operation} call could not reach Salesforce (${error.message}); nothing was written. Send these records again.`,
      fields: [],
    };
  }
  if (error instanceof CrmError && error.kind === 'unreachable') {
    return {
      statusCode: 'CRM_PROXY_OUTCOME_UNKNOWN',
      message: `The ${operation} call to Salesforce got no answer (${error.message}); it was not resent, because Salesforce may have applied it. Check the records before sending them again.`,
      fields: [],
    };
  }
  if (error instanceof CrmError) {
    const first = Array.isArray(error.crmBody) ? (error.crmBody[0] as Record<string, unknown>) : undefined;
    return {
      statusCode: String(first?.['errorCode'] ?? `HTTP_${error.status ?? 'ERROR'}`),
      message: `The ${operation} call failed with status ${error.status ?? '?'}: ${String(first?.['message'] ?? error.message)}. Nothing was resent.`,
      fields: [],
    };
  }
  return { statusCode: 'CRM_PROXY_ERROR', message: `The ${operation} call failed.`, fields: [] };
}
