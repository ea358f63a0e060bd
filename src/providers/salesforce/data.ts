import type { Clock } from '../../lib/clock.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import { positionsWhere } from '../../lib/positions.ts';
import { type BulkJournal, type BulkOptions, bulkWrite } from './bulk2.ts';
import type { CrmSession, DescribeFacet } from './describe-types.ts';
import type { LookupField, SalesforceDataFacet, SaveResult, WriteJournal } from './facet.ts';
import { toCsvRows } from './format.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { salesforceQuery } from './query.ts';
import { reconcileByKey, reconcileInserts } from './reconcile.ts';
import {
  collectionsWrite,
  failedCallEntry,
  mayHaveApplied,
  type Reconciler,
  type Recovery,
} from './save-collections.ts';
import { upsertRecord } from './upsert.ts';

export interface SalesforceDataOptions {
  apiVersion: string;
  clock: Clock;
  /** From this many records on, writes go through Bulk API 2.0 (docs/salesforce-writes.md). */
  bulkThreshold: number;
  cursorKey: Buffer;
  describe: DescribeFacet;
  forgetDescribes(connectionId: string): Promise<void>;
  bulk?: BulkOptions;
}

/** Salesforce's own answer to a malformed id, given without a call. */
function malformedId(id: string): SaveResult {
  return {
    success: false,
    errors: [{ statusCode: 'MALFORMED_ID', message: `malformed id ${id}`, fields: [] }],
  };
}

/** The journal of one Bulk job of a write: its key names the object (a delete runs one per object). */
function bulkJournal(journal: WriteJournal | undefined, objectName: string): BulkJournal | undefined {
  if (journal === undefined) return undefined;
  const part = `bulk:${objectName}`;
  return {
    hook: journal.hook,
    key: `${journal.scope}:${part}`,
    report: (processed, failed) => journal.report(part, processed, failed),
    now: journal.now,
  };
}

type Query = ReturnType<typeof salesforceQuery>;

/** Whole-call failures become per-record entries, unless every call failed: then the request fails. */
async function viaCollections(
  options: SalesforceDataOptions,
  q: Query,
  session: CrmSession,
  limiter: ConcurrencyLimiter,
  operation: 'insert' | 'update' | 'delete',
  objectName: string | null,
  items: Array<Record<string, unknown>> | string[],
  journal: WriteJournal | undefined,
  lookup?: LookupField,
): Promise<SaveResult[]> {
  const since = options.clock.now();
  const recover: Recovery | undefined =
    lookup === undefined || objectName === null
      ? undefined
      : (records) =>
          reconcileByKey(
            {
              session,
              objectName,
              fieldTypes: new Map([[lookup.name, lookup.type]]),
              query: q.query,
              queryMore: q.queryMore,
            },
            records,
            { field: lookup.name, since },
            'insert',
          );
  const reconcile: Reconciler | undefined =
    journal === undefined || objectName === null
      ? undefined
      : (calls, claimed) =>
          reconcileInserts(
            { session, objectName, fieldTypes: journal.fieldTypes, query: q.query, queryMore: q.queryMore },
            calls,
            claimed,
          );
  const { results, failures } = await collectionsWrite(
    session,
    limiter,
    options.apiVersion,
    operation,
    objectName,
    items,
    journal,
    reconcile,
    recover,
  );
  // Every call failed and none can have been applied (an error answer, or never sent): the
  // request fails as a whole. A call that may have been applied stays a per-record answer.
  const calls = Math.ceil(items.length / SALESFORCE_PROFILE.collectionsMaxRecords);
  const first = failures[0]?.error;
  if (failures.length === calls && first !== undefined && !mayHaveApplied(first)) throw first;
  return results;
}

/**
 * Salesforce splits `ids=` on commas, escaped or not: an id holding one would shift every result
 * after it. Malformed ids are answered here, as on the Bulk path, and never sent.
 */
async function removeViaCollections(
  options: SalesforceDataOptions,
  q: Query,
  session: CrmSession,
  limiter: ConcurrencyLimiter,
  ids: string[],
  journal: WriteJournal | undefined,
): Promise<SaveResult[]> {
  const sent = positionsWhere(ids, (id) => SALESFORCE_PROFILE.idPattern.test(id));
  const sentIds = sent.map((i) => ids[i] as string);
  const got =
    sent.length === 0
      ? []
      : await viaCollections(options, q, session, limiter, 'delete', null, sentIds, journal);
  const results = ids.map(malformedId);
  sent.forEach((i, k) => {
    results[i] = got[k] ?? { success: false, errors: [] };
  });
  return results;
}

/** A Bulk job is for one object: the ids grouped by object, from their key prefix. */
async function idsByObject(
  options: SalesforceDataOptions,
  session: CrmSession,
  ids: string[],
  results: SaveResult[],
): Promise<Map<string, number[]>> {
  const global = await options.describe.describeGlobal(session);
  const byPrefix = new Map(global.sobjects.filter((o) => o.keyPrefix).map((o) => [o.keyPrefix, o.name]));
  const groups = new Map<string, number[]>();
  ids.forEach((id, i) => {
    const object = SALESFORCE_PROFILE.idPattern.test(id) ? byPrefix.get(id.slice(0, 3)) : undefined;
    if (object === undefined) {
      results[i] = malformedId(id);
      return;
    }
    const g = groups.get(object);
    if (g === undefined) groups.set(object, [i]);
    else g.push(i);
  });
  return groups;
}

/** Bulk deletes, one job per object; one object's failed job fails only its own ids. */
async function removeViaBulk(
  options: SalesforceDataOptions,
  session: CrmSession,
  ids: string[],
  journal: WriteJournal | undefined,
): Promise<SaveResult[]> {
  const results: SaveResult[] = new Array(ids.length);
  const groups = await idsByObject(options, session, ids, results);
  const settled = await Promise.allSettled(
    [...groups].map(async ([object, indexes]) => {
      const rows = indexes.map((i) => [ids[i] as string]);
      const got = await bulkWrite(
        session,
        options.clock,
        options.apiVersion,
        'delete',
        object,
        ['Id'],
        rows,
        options.bulk,
        bulkJournal(journal, object),
      );
      indexes.forEach((i, k) => {
        results[i] = got[k] ?? { success: false, errors: [] };
      });
    }),
  );
  // One object's job failing must not hide what the other objects' jobs deleted.
  const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length > 0 && failed.length === settled.length) throw failed[0];
  [...groups.values()].forEach((indexes, g) => {
    const outcome = settled[g];
    if (outcome?.status !== 'rejected') return;
    const entry = failedCallEntry(outcome.reason, 'bulk delete');
    for (const i of indexes) results[i] = { success: false, errors: [entry] };
  });
  return results;
}

export function salesforceData(options: SalesforceDataOptions): SalesforceDataFacet {
  const { apiVersion } = options;
  const q = salesforceQuery(apiVersion, options.cursorKey);
  return {
    bulkThreshold: options.bulkThreshold,

    async save(session, limiter, operation, objectName, records, via, journal, lookup) {
      if (via === 'collections') {
        return viaCollections(options, q, session, limiter, operation, objectName, records, journal, lookup);
      }
      const { header, rows } = toCsvRows(records);
      // A job's few calls are sequential and mostly waits: it takes no slot of the limiter.
      const bulk = bulkJournal(journal, objectName);
      return bulkWrite(
        session,
        options.clock,
        apiVersion,
        operation,
        objectName,
        header,
        rows,
        options.bulk,
        bulk,
      );
    },

    remove(session, limiter, ids, via, journal) {
      return via === 'collections'
        ? removeViaCollections(options, q, session, limiter, ids, journal)
        : removeViaBulk(options, session, ids, journal);
    },

    upsert(session, limiter, meta, record, matchField) {
      return upsertRecord(
        session,
        limiter,
        apiVersion,
        q,
        () => options.clock.now(),
        meta,
        record,
        matchField,
      );
    },

    query: q.query,
    queryMore: q.queryMore,
    forgetDescribes: options.forgetDescribes,
  };
}
