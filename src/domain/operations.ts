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

export type CrmRecord = Record<string, unknown>;

export interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

/** `id` is absent or null when a create failed (answers always carry it). */
export interface SaveResult {
  id?: string | null;
  success: boolean;
  errors: RecordError[];
}

export interface WriteAnswer {
  data: SaveResult[];
  /** The interface that carried the write, when the CRM has several (`X-CRM-Proxy-Interface`). */
  via?: string;
  /** Why `via` was chosen (`requested`, `allowance-65%-left`, …). */
  reason?: string;
}

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
      errors?: unknown[];
    }
  | { json: string };

export interface QueryPage {
  totalSize: number;
  done: boolean;
  records: CrmRecord[];
  next_cursor: string | null;
}

export interface AssociationKind {
  category: string;
  typeId: number;
  label: string | null;
}

/** The associations of one record to one object type. */
export interface RecordAssociations {
  id: string;
  to: Array<{ id: string; types: AssociationKind[] }>;
}

export interface AssociationLink {
  id: string;
  to: string;
  toId: string;
  /** Absent: the CRM's default, unlabelled type. */
  label?: string | undefined;
}

/** Entries in the CRM's own shape. */
export interface AuditLogPage {
  records: Array<Record<string, unknown>>;
  done: boolean;
  next_cursor: string | null;
}

export interface UpsertOutcome {
  result: SaveResult;
  /** The CRM's own upsert, or a lookup followed by an insert/update. */
  action: string;
}

export interface CountryState {
  /** ISO 3166-2 code without the country prefix (`CA` for California). */
  code: string;
  label: string;
  active: boolean;
  visible: boolean;
}

/** `code`: ISO 3166-1 alpha-2. */
export interface Country extends CountryState {
  states: CountryState[];
}

/** `org_picklists`: the org's own picklists; `iso_default`: the standard list, when the org has them off. */
export interface CountryList {
  source: 'org_picklists' | 'iso_default';
  countries: Country[];
}
