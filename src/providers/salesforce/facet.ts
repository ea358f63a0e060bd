import type { QueryPage, SaveResult, UpsertOutcome } from '../../domain/operations.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import type { JobHook } from '../adapter.ts';
import type { CrmSession, ObjectDescribe } from './describe-types.ts';

export type { RecordError, SaveResult } from '../../domain/operations.ts';
export type { QueryPage };

export type WriteInterface = 'collections' | 'bulk2';
export type SaveOperation = 'insert' | 'update';

/**
 * A record ready to send: canonical field names (or `Relationship.ExternalIdField` for a parent
 * reference) → JSON values (multi-select picklists as arrays or `a;b` strings).
 */
export type PreparedRecord = Record<string, unknown>;

export interface SalesforceUpsertOutcome extends UpsertOutcome {
  action: 'external_id_upsert' | 'insert' | 'update' | 'ambiguous';
}

/**
 * One write of a durable job: where its checkpoints go and how its progress is counted. A re-run
 * after a crash gets the same scope, so it finds what the first run journaled.
 */
export interface WriteJournal {
  hook: JobHook;
  /** Prefix of this write's journal keys (one per lock-retry round). */
  scope: string;
  /** Field types of the object by canonical name (insert reconciliation compares exact types only). */
  fieldTypes: ReadonlyMap<string, string>;
  /** Counts of one part (a Collections call or a Bulk job) so far. */
  report(part: string, processed: number, failed: number): void;
  /** Now, as ISO text, from the service's clock. */
  now(): string;
}

/** The field an insert's records can be found by after a lost answer (an external id), and its type. */
export interface LookupField {
  name: string;
  type: string;
}

/** Salesforce record writes and queries, used by the handlers. */
export interface SalesforceDataFacet {
  /** Writes of at least this many records go through Bulk API 2.0. */
  readonly bulkThreshold: number;
  save(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    operation: SaveOperation,
    objectName: string,
    records: PreparedRecord[],
    via: WriteInterface,
    journal?: WriteJournal,
    lookup?: LookupField,
  ): Promise<SaveResult[]>;
  remove(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    ids: string[],
    via: WriteInterface,
    journal?: WriteJournal,
  ): Promise<SaveResult[]>;
  upsert(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    meta: ObjectDescribe,
    record: PreparedRecord,
    matchField: string,
  ): Promise<SalesforceUpsertOutcome>;
  query(session: CrmSession, soql: string): Promise<QueryPage>;
  queryMore(session: CrmSession, cursor: string): Promise<QueryPage>;
  /** Forget cached describes of the connection (after a metadata change). */
  forgetDescribes(connectionId: string): Promise<void>;
}
