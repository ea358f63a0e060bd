import type { SaveResult } from '../../domain/operations.ts';
import { positionsWhere } from '../../lib/positions.ts';
import type { JobHook } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse, mayHaveApplied } from '../errors.ts';
import { JournalSteps } from '../journal-steps.ts';
import { type PreparedRecord, toCollectionsRecord } from './format.ts';
import { cancelledResult, failedCallEntry, malformedId, normalizeResult, type Org, send } from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { type KeyField, reconcileByKey, reconcileInserts } from './reconcile.ts';

export type WriteOperation = 'insert' | 'update' | 'delete';

/** One write of a durable job; a re-run gets the same scope, so it finds what the first run journaled. */
export interface WriteJournal {
  hook: JobHook;
  /** Prefix of this write's journal keys (one per lock-retry round). */
  scope: string;
  /** Counts of one part (a Collections call or a Bulk job) so far. */
  report(part: string, processed: number, failed: number): void;
}

const failedCount = (results: SaveResult[]) => results.filter((r) => !r.success).length;

/**
 * sObject Collections writes, 200 records a call. A call that may have been applied is never resent
 * (a create would write twice): its records fail unless `lookup` finds them. Malformed ids are not
 * sent: Salesforce splits `ids=` on any comma. In a job, a re-run reuses answered calls, resends
 * interrupted updates and deletes, and reconciles interrupted inserts first.
 */
export async function viaCollections(
  org: Org,
  operation: WriteOperation,
  objectName: string | null,
  all: PreparedRecord[] | string[],
  journal?: WriteJournal,
  lookup?: KeyField,
): Promise<SaveResult[]> {
  const sent =
    operation === 'delete'
      ? positionsWhere(all as string[], (id) => SALESFORCE_PROFILE.idPattern.test(id))
      : all.map((_, i) => i);
  const items = sent.map((i) => all[i]) as PreparedRecord[] | string[];
  const since = org.clock.now();
  const size = SALESFORCE_PROFILE.collectionsMaxRecords;
  const failures: unknown[] = [];
  const starts = Array.from({ length: Math.ceil(items.length / size) }, (_, k) => k * size);
  const keyOf = (start: number) => `${journal?.scope}:collections:${operation}:${start}`;

  const steps = new JournalSteps<SaveResult[]>(journal?.hook, () => new Date(org.clock.now()).toISOString());
  const { known, sentAt } = await resumed(org, operation, objectName, items, journal, starts, (start) =>
    steps.state(keyOf(start)),
  );

  const calls = starts.map((start) =>
    org.limiter.run(async () => {
      const chunk = items.slice(start, start + size);
      const settled = known.get(start) ?? [];
      const open = positionsWhere<unknown>(chunk, (_, i) => settled[i] === undefined);
      // Records left without an entry (a job cancelled before the call) get the cancelled one below.
      const answered: Array<SaveResult | undefined> = chunk.map((_, i) => settled[i]);
      const sending = open.length > 0 && journal?.hook.signal.aborted !== true;
      if (sending) {
        // The earliest send time is kept: a later reconciliation must look back to the first send.
        await steps.sending(keyOf(start), sentAt.get(start));
        const records = open.map((i) => chunk[i]) as PreparedRecord[] | string[];
        let got: SaveResult[];
        try {
          got = await oneCall(org, operation, objectName, records);
        } catch (error) {
          failures.push(error);
          const entry = failedCallEntry(error, operation);
          // An insert whose answer was lost: what Salesforce holds now says, for records it can find.
          const found =
            operation === 'insert' && lookup !== undefined && objectName !== null && mayHaveApplied(error)
              ? await reconcileByKey(org, objectName, records as PreparedRecord[], { ...lookup, since })
              : [];
          got = records.map((_, k) => found[k] ?? { success: false, errors: [entry] });
        }
        open.forEach((i, k) => {
          answered[i] = got[k] ?? { success: false, errors: [] };
        });
      }
      const final = answered.map((r) => r ?? cancelledResult());
      // Done once sent, or once reconciliation settled every record of an interrupted call.
      if (sending || (open.length === 0 && settled.length > 0 && sentAt.has(start))) {
        await steps.done(keyOf(start), final);
      }
      journal?.report(`c${start}`, final.length, failedCount(final));
      return final;
    }),
  );
  const results = (await Promise.all(calls)).flat();
  const first = failures[0];
  if (failures.length === starts.length && first !== undefined && !mayHaveApplied(first)) throw first;
  if (operation !== 'delete') return results;
  const answers = (all as string[]).map(malformedId);
  sent.forEach((i, k) => {
    answers[i] = results[k] ?? { success: false, errors: [] };
  });
  return answers;
}

/**
 * What earlier runs of a job left: answered calls, interrupted inserts reconciled, and when each
 * interrupted call was sent. Outside a job nothing was left, and nothing is read.
 */
async function resumed(
  org: Org,
  operation: WriteOperation,
  objectName: string | null,
  items: PreparedRecord[] | string[],
  journal: WriteJournal | undefined,
  starts: number[],
  state: (start: number) => ReturnType<JournalSteps<SaveResult[]>['state']>,
) {
  const size = SALESFORCE_PROFILE.collectionsMaxRecords;
  const known = new Map<number, Array<SaveResult | undefined>>();
  const sentAt = new Map<number, string>();
  if (journal === undefined) return { known, sentAt };
  const entries = await Promise.all(starts.map(state));
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
  if (interrupted.length > 0 && objectName !== null) {
    const reconciling = interrupted.map((start) => ({
      records: (items as PreparedRecord[]).slice(start, start + size),
      since: sentAt.get(start) as string,
    }));
    const found = await reconcileInserts(org, objectName, reconciling, claimed);
    for (const [k, start] of interrupted.entries()) known.set(start, found[k] ?? []);
  }
  return { known, sentAt };
}

async function oneCall(
  org: Org,
  operation: WriteOperation,
  objectName: string | null,
  chunk: PreparedRecord[] | string[],
): Promise<SaveResult[]> {
  const base = `${org.api}/composite/sobjects`;
  const response = await send(
    org,
    `collections ${operation}`,
    `collections.${operation}`,
    operation === 'delete'
      ? {
          method: 'DELETE',
          url: `${base}?ids=${(chunk as string[]).map(encodeURIComponent).join(',')}&allOrNone=false`,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          // A write: resent only when the connection never opened (see decide()).
          idempotent: false,
        }
      : {
          method: operation === 'insert' ? 'POST' : 'PATCH',
          url: base,
          json: {
            allOrNone: false,
            records: (chunk as PreparedRecord[]).map((r) => toCollectionsRecord(objectName ?? '', r)),
          },
          idempotent: false,
        },
  );
  const body = parseJson<SaveResult[]>(response);
  if (response.status !== 200 || !Array.isArray(body) || body.length !== chunk.length) {
    throw crmErrorFromResponse('salesforce', response, `collections ${operation}`);
  }
  return body.map(normalizeResult);
}
