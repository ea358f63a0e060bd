import type { CrmRecord } from '../../domain/operations.ts';
import type { ApiError } from '../../errors/index.ts';
import type { CrmSession } from '../adapter.ts';

export type { CrmRecord, CrmSession };

/** Salesforce's Describe Global result, passed through unchanged. */
export interface DescribeGlobalResult {
  sobjects: Array<{ name: string; keyPrefix?: string | null } & Record<string, unknown>>;
  [key: string]: unknown;
}

/** Salesforce's sObject Describe result, passed through unchanged. */
export interface ObjectDescribe {
  name: string;
  keyPrefix?: string | null;
  fields: Array<{ name: string } & Record<string, unknown>>;
  [key: string]: unknown;
}

/** Describes, cached per connection. */
export interface DescribeFacet {
  describeGlobal(session: CrmSession): Promise<DescribeGlobalResult>;
  /** Null when the org has no such object. */
  describeObject(session: CrmSession, objectName: string): Promise<ObjectDescribe | null>;
  /** `404 unknown_object` for a name the org lacks, with its closest object name as a hint. */
  unknownObject(session: CrmSession, objectName: string): Promise<ApiError>;
  /** Canonical object name from the (cached) global describe; null when the org has no such object. */
  resolveObjectName(session: CrmSession, objectName: string): Promise<string | null>;
}

/** sObject Collections retrieve. */
export interface RecordsFacet {
  /** Largest number of ids one retrieve call takes. */
  readonly retrieveBatchSize: number;
  /** One retrieve call: one entry per id, in order, `null` where the id matches no record. */
  retrieve(
    session: CrmSession,
    objectName: string,
    ids: string[],
    fields: string[],
  ): Promise<Array<CrmRecord | null>>;
  /**
   * The same call, answered as the CRM's JSON array text (one entry per id, in order), for callers
   * that pass it on unchanged and need not pay for parsing and re-serialising thousands of records.
   */
  retrieveJson(session: CrmSession, objectName: string, ids: string[], fields: string[]): Promise<string>;
}
