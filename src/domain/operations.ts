// What the API offers, independent of any CRM: the operation names and the shapes of their answers.

export const OPERATIONS = [
  'insert',
  'upsert',
  'update',
  'delete',
  'get',
  'query',
  'search',
  'describe',
  'countries',
  'add_custom_field',
  'associations',
  'associate',
  'dissociate',
  'audit_logs',
  'passthrough',
] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** A record: field name → value. */
export type CrmRecord = Record<string, unknown>;

/** A CRM's own per-record error entry. */
export interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

/** Per-record write result: `id` is absent or null when a create failed (answers always carry it). */
export interface SaveResult {
  id?: string | null;
  success: boolean;
  errors: RecordError[];
}

/** A write's answer and, when the CRM has several, the interface that carried it (`X-CRM-Proxy-Interface`). */
export interface WriteAnswer {
  data: SaveResult[];
  via?: string;
  /** Why `via` was chosen (`requested`, `allowance-65%-left`, …), named beside it in the header. */
  reason?: string;
}

/** Per-id notes of a get: ids that cannot be ids of this CRM, or the CRM's own error entries. */
export interface IdError {
  index: number;
  id: string;
  code: 'malformed_id';
  message: string;
}

/** A get's answer, as a value or as ready JSON text of the same shape (`{"data": [...]}`). */
export type GetAnswer =
  | {
      /** One entry per id passed, in order; `null` where no record exists. */
      data: Array<CrmRecord | null>;
      /** Absent when there are none. */
      errors?: unknown[];
    }
  | { json: string };

export interface QueryPage {
  totalSize: number;
  done: boolean;
  records: CrmRecord[];
  next_cursor: string | null;
}

/** One association type, as the CRM names it. */
export interface AssociationKind {
  category: string;
  typeId: number;
  label: string | null;
}

/** The associations of one record to one object type: every associated record with its types. */
export interface RecordAssociations {
  id: string;
  to: Array<{ id: string; types: AssociationKind[] }>;
}

/** An association to create or remove between two records. */
export interface AssociationLink {
  id: string;
  to: string;
  toId: string;
  /** The association's label (create); absent: the CRM's default, unlabelled type. */
  label?: string | undefined;
}

/** One page of the account's audit log: entries in the CRM's own shape, and the cursor to the rest. */
export interface AuditLogPage {
  records: Array<Record<string, unknown>>;
  done: boolean;
  next_cursor: string | null;
}

export interface UpsertOutcome {
  result: SaveResult;
  /** What the service did: the CRM's own upsert, or a lookup followed by an insert/update. */
  action: string;
}

/** One state or province of a country's address picklist. */
export interface CountryState {
  /** ISO 3166-2 subdivision code, without the country prefix (`CA` for California). */
  code: string;
  label: string;
  active: boolean;
  visible: boolean;
}

/** A country or territory of the address picklists (`code`: ISO 3166-1 alpha-2), with its states, if any. */
export interface Country extends CountryState {
  states: CountryState[];
}

/**
 * The countries an account's addresses take. `org_picklists`: the org's own State and
 * Country/Territory picklists; `iso_default`: the standard list, when the org has them off.
 */
export interface CountryList {
  source: 'org_picklists' | 'iso_default';
  countries: Country[];
}
