import type { Clock } from '../../lib/clock.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import { positionsWhere } from '../../lib/positions.ts';
import { yieldToLoop } from '../../lib/yield-to-loop.ts';
import { type BulkJournal, type BulkOptions, bulkWrite } from './bulk2.ts';
import type { CrmSession, DescribeFacet } from './describe-types.ts';
import type { SalesforceDataFacet, SaveResult, WriteJournal } from './facet.ts';
import { toCsvRows } from './format.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { salesforceQuery } from './query.ts';
import { reconcileInserts } from './reconcile.ts';
import { collectionsWrite, failedCallEntry, mayHaveApplied, type Reconciler } from './save-collections.ts';
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

export function salesforceData(options: SalesforceDataOptions): SalesforceDataFacet {
  const { apiVersion } = options;
  const q = salesforceQuery(apiVersion, options.cursorKey);

  /** Whole-call failures become per-record entries, unless every call failed: then the request fails. */
  async function viaCollections(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    operation: 'insert' | 'update' | 'delete',
    objectName: string | null,
    items: Array<Record<string, unknown>> | string[],
    journal: WriteJournal | undefined,
  ): Promise<SaveResult[]> {
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
      apiVersion,
      operation,
      objectName,
      items,
      journal,
      reconcile,
    );
    // Every call failed and none can have been applied (an error answer, or never sent): the
    // request fails as a whole. A call that may have been applied stays a per-record answer.
    const calls = Math.ceil(items.length / SALESFORCE_PROFILE.collectionsMaxRecords);
    const first = failures[0]?.error;
    if (failures.length === calls && first !== undefined && !mayHaveApplied(first)) throw first;
    return results;
  }

  return {
    bulkThreshold: options.bulkThreshold,

    async save(session, limiter, operation, objectName, records, via, journal) {
      if (via === 'collections') {
        return viaCollections(session, limiter, operation, objectName, records, journal);
      }
      await yieldToLoop();
      const { header, rows } = toCsvRows(records);
      // A job's few calls are sequential and mostly waits: it takes no slot of the limiter.
      return bulkWrite(
        session,
        options.clock,
        apiVersion,
        operation,
        objectName,
        header,
        rows,
        options.bulk,
        bulkJournal(journal, objectName),
      );
    },

    async remove(session, limiter, ids, via, journal) {
      if (via === 'collections') {
        // Salesforce splits `ids=` on commas, escaped or not: an id holding one would shift every
        // result after it. Malformed ids are answered here, as on the Bulk path, and never sent.
        const sent = positionsWhere(ids, (id) => SALESFORCE_PROFILE.idPattern.test(id));
        const got =
          sent.length === 0
            ? []
            : await viaCollections(
                session,
                limiter,
                'delete',
                null,
                sent.map((i) => ids[i] as string),
                journal,
              );
        const results = ids.map(malformedId);
        sent.forEach((i, k) => {
          results[i] = got[k] ?? { success: false, errors: [] };
        });
        return results;
      }
      // A Bulk job is for one object: group the ids by key prefix.
      const global = await options.describe.describeGlobal(session);
      const byPrefix = new Map(global.sobjects.filter((o) => o.keyPrefix).map((o) => [o.keyPrefix, o.name]));
      const groups = new Map<string, number[]>();
      const results: SaveResult[] = new Array(ids.length);
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
      const settled = await Promise.allSettled(
        [...groups].map(async ([object, indexes]) => {
          const got = await bulkWrite(
            session,
            options.clock,
            apiVersion,
            'delete',
            object,
            ['Id'],
            indexes.map((i) => [ids[i] as string]),
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
    },

    upsert(session, limiter, meta, record, matchField) {
      return upsertRecord(session, limiter, apiVersion, q.query, meta, record, matchField);
    },

    query: q.query,
    queryMore: q.queryMore,
    forgetDescribes: options.forgetDescribes,
  };
}
