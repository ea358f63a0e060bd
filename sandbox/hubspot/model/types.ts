/**
 * The sandbox's data model, shaped like HubSpot's own (CRM v3 `Property`, `PropertyGroup`,
 * `ObjectSchema`, `SimplePublicObject`). Routes serialise these as they are, so field names follow
 * the wire.
 */

export type PropertyType =
  | 'string'
  | 'number'
  | 'date'
  | 'datetime'
  | 'enumeration'
  | 'bool'
  | 'phone_number'
  | 'object_coordinates'
  | 'json';

export interface PropertyOption {
  label: string;
  value: string;
  displayOrder?: number;
  hidden: boolean;
  description?: string;
}

export interface ModificationMetadata {
  archivable: boolean;
  readOnlyDefinition: boolean;
  readOnlyValue: boolean;
  readOnlyOptions?: boolean;
}

/** HubSpot's `Property` model (crm-properties-v3 `Property`), with the extra keys live answers carry. */
export interface PropertyDefinition {
  name: string;
  label: string;
  type: PropertyType | string;
  fieldType: string;
  description: string;
  groupName: string;
  options: PropertyOption[];
  displayOrder?: number;
  calculated?: boolean;
  externalOptions?: boolean;
  hasUniqueValue?: boolean;
  hidden?: boolean;
  hubspotDefined?: boolean;
  formField?: boolean;
  showCurrencySymbol?: boolean;
  calculationFormula?: string;
  referencedObjectType?: string;
  archived?: boolean;
  archivedAt?: string;
  createdAt?: string;
  updatedAt?: string;
  createdUserId?: string;
  updatedUserId?: string;
  modificationMetadata?: ModificationMetadata;
  dataSensitivity?: string;
  sensitiveDataCategories?: string[];
  numberDisplayHint?: string;
  textDisplayHint?: string;
  dateDisplayHint?: string;
  currencyPropertyName?: string;
}

/** HubSpot's `PropertyGroup`. */
export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
  archived: boolean;
}

export interface AssociationDefinition {
  id: string;
  fromObjectTypeId: string;
  toObjectTypeId: string;
  name?: string;
  cardinality?: string;
  inverseCardinality?: string;
  createdAt: string | null;
  updatedAt: string | null;
}

/** One object type: the metadata of HubSpot's `ObjectSchema` plus what the Objects API needs to behave. */
export interface ObjectTypeDefinition {
  /** `0-1`, `0-2`, …, `2-<n>` for custom types. */
  objectTypeId: string;
  /** Numeric part of the type id, as `ObjectSchema.id` shows it (`"1"`, `"3604285"`). */
  id: string;
  /** Standard types: the path name (`contacts`); custom types: the schema `name` (`cars`). */
  name: string;
  /** `CONTACT`, `COMPANY`, … for standard types; `p{portalId}_{name}` for custom types. */
  fullyQualifiedName: string;
  /** Upper-case singular used in messages ("Could not get some CONTACT objects"). */
  singularName: string;
  labels: { singular: string; plural: string };
  description?: string;
  metaType: 'HUBSPOT' | 'PORTAL_SPECIFIC';
  custom: boolean;
  requiredProperties: string[];
  searchableProperties: string[];
  primaryDisplayProperty?: string;
  secondaryDisplayProperties: string[];
  associations: AssociationDefinition[];
  allowsSensitiveProperties?: boolean;
  restorable: boolean;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  createdByUserId?: number;
  updatedByUserId?: number;
  /** Property holding the creation timestamp: `createdate` or `hs_createdate`. */
  createdateProperty: string;
  /** Property holding the modification timestamp: `lastmodifieddate` or `hs_lastmodifieddate`. */
  lastModifiedProperty: string;
  /** Extra properties returned when a read names none (besides the identity trio). */
  defaultProperties: string[];
  /** Properties a search `query` looks in. */
  queryProperties: string[];
  /** Feedback submissions are read-only through the API. */
  readOnly: boolean;
  /** Aliases the path segment may use besides the type id (lower-cased when matched). */
  aliases: string[];
}

export interface ValueWithTimestamp {
  value: string;
  timestamp: string;
  sourceType: string;
  sourceId?: string;
  updatedByUserId?: number;
}

/** A stored record. Values are kept as HubSpot returns them: strings, `""` when cleared. */
export interface StoredRecord {
  id: string;
  objectTypeId: string;
  properties: Record<string, string>;
  history: Record<string, ValueWithTimestamp[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
}

export interface Owner {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  userId: number;
  userIdIncludingInactive: number;
  type: 'PERSON' | 'QUEUE';
  teams: { id: string; name: string; primary: boolean }[];
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface PipelineStage {
  id: string;
  label: string;
  displayOrder: number;
  metadata: Record<string, string>;
  writePermissions?: string;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Pipeline {
  id: string;
  label: string;
  displayOrder: number;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  stages: PipelineStage[];
}
