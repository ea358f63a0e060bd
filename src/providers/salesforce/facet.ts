import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import type { CrmRecord, CrmSession, ObjectDescribe } from '../adapter.ts';

/** Salesforce's own per-record error entry (collections `statusCode`, not REST's `errorCode`). */
export interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

/** Per-record result (spec 2.2): `id` is absent when a create failed, as Salesforce answers. */
export interface SaveResult {
  id?: string;
  success: boolean;
  errors: RecordError[];
}

export type WriteInterface = 'collections' | 'bulk2';
export type SaveOperation = 'insert' | 'update';

/**
 * A record ready to send: canonical field names (or `Relationship.ExternalIdField` for a parent
 * reference) → JSON values (multi-select picklists as arrays or `a;b` strings).
 */
export type PreparedRecord = Record<string, unknown>;

export interface QueryPage {
  totalSize: number;
  done: boolean;
  records: CrmRecord[];
  next_cursor: string | null;
}

export interface UpsertOutcome {
  result: SaveResult;
  /** What the service did: the CRM's own upsert, or a lookup followed by an insert/update. */
  action: 'external_id_upsert' | 'insert' | 'update' | 'ambiguous';
}

/** Salesforce record writes and queries, used by the operations layer. */
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
  ): Promise<SaveResult[]>;
  remove(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    ids: string[],
    via: WriteInterface,
  ): Promise<SaveResult[]>;
  upsert(
    session: CrmSession,
    limiter: ConcurrencyLimiter,
    meta: ObjectDescribe,
    record: PreparedRecord,
    matchField: string,
  ): Promise<UpsertOutcome>;
  query(session: CrmSession, soql: string): Promise<QueryPage>;
  queryMore(session: CrmSession, cursor: string): Promise<QueryPage>;
  /** Forget cached describes of the connection (after a metadata change). */
  forgetDescribes(connectionId: string): void;
}
