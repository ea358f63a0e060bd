/** Shapes of describe metadata and DML results, as Salesforce's REST API writes them. */

export type FieldType =
  | 'id'
  | 'string'
  | 'textarea'
  | 'email'
  | 'phone'
  | 'url'
  | 'picklist'
  | 'multipicklist'
  | 'combobox'
  | 'boolean'
  | 'int'
  | 'long'
  | 'double'
  | 'currency'
  | 'percent'
  | 'date'
  | 'datetime'
  | 'time'
  | 'reference'
  | 'address'
  | 'location'
  | 'base64'
  | 'encryptedstring'
  | 'anyType'
  | 'complexvalue';

export interface PicklistEntry {
  active: boolean;
  defaultValue: boolean;
  label: string;
  validFor: string | null;
  value: string;
}

/** One field of an sObject describe (every key the real answer carries). */
export interface FieldDescribe {
  aggregatable: boolean;
  autoNumber: boolean;
  byteLength: number;
  calculated: boolean;
  calculatedFormula: string | null;
  cascadeDelete: boolean;
  caseSensitive: boolean;
  compoundFieldName: string | null;
  controllerName: string | null;
  createable: boolean;
  custom: boolean;
  defaultValue: unknown;
  defaultValueFormula: string | null;
  defaultedOnCreate: boolean;
  dependentPicklist: boolean;
  deprecatedAndHidden: boolean;
  digits: number;
  displayLocationInDecimal: boolean;
  encrypted: boolean;
  externalId: boolean;
  extraTypeInfo: string | null;
  filterable: boolean;
  filteredLookupInfo: unknown;
  groupable: boolean;
  highScaleNumber: boolean;
  htmlFormatted: boolean;
  idLookup: boolean;
  inlineHelpText: string | null;
  label: string;
  length: number;
  mask: string | null;
  maskType: string | null;
  name: string;
  nameField: boolean;
  namePointing: boolean;
  nillable: boolean;
  permissionable: boolean;
  picklistValues: PicklistEntry[];
  polymorphicForeignKey: boolean;
  precision: number;
  queryByDistance: boolean;
  referenceTargetField: string | null;
  referenceTo: string[];
  relationshipName: string | null;
  relationshipOrder: number | null;
  restrictedDelete: boolean;
  restrictedPicklist: boolean;
  scale: number;
  searchPrefilterable: boolean;
  soapType: string;
  sortable: boolean;
  type: FieldType;
  unique: boolean;
  updateable: boolean;
  writeRequiresMasterRead: boolean;
}

export interface ChildRelationship {
  cascadeDelete: boolean;
  childSObject: string;
  deprecatedAndHidden: boolean;
  field: string;
  junctionIdListNames: string[];
  junctionReferenceTo: string[];
  relationshipName: string | null;
  restrictedDelete: boolean;
}

/** A whole sObject describe answer; keys beyond the typed ones are kept as they came. */
export interface SObjectDescribe {
  name: string;
  label: string;
  labelPlural: string;
  keyPrefix: string | null;
  custom: boolean;
  createable: boolean;
  updateable: boolean;
  deletable: boolean;
  queryable: boolean;
  fields: FieldDescribe[];
  childRelationships: ChildRelationship[];
  urls: Record<string, string>;
  [key: string]: unknown;
}

/** A stored field value: JSON-ready (dates and datetimes as Salesforce formats them). */
export type FieldValue = string | number | boolean | null;
/** A stored record: canonical field names to values. */
export type SRecord = Record<string, FieldValue>;

export interface RecordError {
  statusCode: string;
  message: string;
  fields: string[];
}

/** SaveResult / UpsertResult / DeleteResult of the REST API. Failed rows carry no `id`. */
export interface SaveResult {
  id?: string;
  success: boolean;
  errors: RecordError[];
  created?: boolean;
}

/** Options of every DML call of the kernel. */
export interface DmlOptions {
  /** Roll everything back when one record fails (each other record then reports the rollback). */
  allOrNone?: boolean;
  /** Who writes: CreatedById / LastModifiedById / default OwnerId. The org's admin when absent. */
  userId?: string;
  /** Values are CSV strings (Bulk): coerced by field type; `#N/A` is null; an empty string is null on insert and untouched on update. */
  csv?: boolean;
}
