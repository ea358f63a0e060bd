import type { FieldDescribe, FieldType, PicklistEntry } from './types.ts';

/** What authoring a field needs; everything else gets the value a real describe shows for its type. */
export type FieldSpec = Partial<FieldDescribe> & { name: string; type: FieldType; label?: string };

const SOAP_TYPES: Record<FieldType, string> = {
  id: 'tns:ID',
  reference: 'tns:ID',
  string: 'xsd:string',
  textarea: 'xsd:string',
  email: 'xsd:string',
  phone: 'xsd:string',
  url: 'xsd:string',
  picklist: 'xsd:string',
  multipicklist: 'xsd:string',
  combobox: 'xsd:string',
  encryptedstring: 'xsd:string',
  boolean: 'xsd:boolean',
  int: 'xsd:int',
  long: 'xsd:long',
  double: 'xsd:double',
  currency: 'xsd:double',
  percent: 'xsd:double',
  date: 'xsd:date',
  datetime: 'xsd:dateTime',
  time: 'xsd:time',
  address: 'urn:address',
  location: 'urn:location',
  base64: 'xsd:base64Binary',
  anyType: 'xsd:anyType',
  complexvalue: 'urn:JsonNode',
};

const DEFAULT_LENGTH: Partial<Record<FieldType, number>> = {
  id: 18,
  reference: 18,
  string: 255,
  textarea: 255,
  email: 80,
  phone: 40,
  url: 255,
  picklist: 255,
  multipicklist: 4099,
  combobox: 255,
  encryptedstring: 175,
};

const TEXT_TYPES = new Set<FieldType>([
  'id',
  'reference',
  'string',
  'textarea',
  'email',
  'phone',
  'url',
  'picklist',
  'multipicklist',
  'combobox',
  'encryptedstring',
]);

/** Label from an API name: `External_Id__c` → `External Id`, `AccountId` → `Account ID`. */
export function labelFor(name: string): string {
  return name
    .replace(/__c$/, '')
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/\bId$/, 'ID');
}

export function picklist(values: string[], defaultValue?: string): PicklistEntry[] {
  return values.map((value) => ({
    active: true,
    defaultValue: value === defaultValue,
    label: value,
    validFor: null,
    value,
  }));
}

/** A complete field describe from a short spec. */
export function buildField(spec: FieldSpec): FieldDescribe {
  const type = spec.type;
  const text = TEXT_TYPES.has(type);
  const length = spec.length ?? (text ? (DEFAULT_LENGTH[type] ?? 255) : 0);
  const isId = type === 'id';
  const numeric = type === 'double' || type === 'currency' || type === 'percent';
  const field: FieldDescribe = {
    aggregatable: type !== 'textarea' && type !== 'address' && type !== 'location',
    autoNumber: false,
    byteLength: text ? length * 3 : 0,
    calculated: false,
    calculatedFormula: null,
    cascadeDelete: false,
    caseSensitive: false,
    compoundFieldName: null,
    controllerName: null,
    createable: !isId,
    custom: spec.name.endsWith('__c'),
    defaultValue: type === 'boolean' ? false : null,
    defaultValueFormula: null,
    defaultedOnCreate: isId || type === 'boolean',
    dependentPicklist: false,
    deprecatedAndHidden: false,
    digits: type === 'int' ? 9 : 0,
    displayLocationInDecimal: false,
    encrypted: false,
    externalId: false,
    extraTypeInfo: null,
    filterable: type !== 'textarea' || length <= 255,
    filteredLookupInfo: null,
    groupable: !numeric && type !== 'textarea' && type !== 'datetime' && type !== 'multipicklist',
    highScaleNumber: false,
    htmlFormatted: false,
    idLookup: isId,
    inlineHelpText: null,
    label: spec.label ?? labelFor(spec.name),
    length,
    mask: null,
    maskType: null,
    nameField: false,
    namePointing: false,
    nillable: !isId && type !== 'boolean',
    permissionable: !isId && (type !== 'boolean' || spec.name.endsWith('__c')),
    picklistValues: [],
    polymorphicForeignKey: false,
    precision: numeric ? 18 : 0,
    queryByDistance: false,
    referenceTargetField: null,
    referenceTo: [],
    relationshipName: null,
    relationshipOrder: null,
    restrictedDelete: false,
    restrictedPicklist: false,
    scale: numeric ? 2 : 0,
    searchPrefilterable: false,
    soapType: SOAP_TYPES[type],
    sortable: type !== 'textarea' && type !== 'multipicklist',
    unique: false,
    updateable: !isId,
    writeRequiresMasterRead: false,
    ...spec,
  } as FieldDescribe;
  if (spec.byteLength === undefined && text) field.byteLength = field.length * 3;
  if (field.externalId || field.unique) field.idLookup = spec.idLookup ?? true;
  return field;
}

/** The audit fields every object has (not createable: Salesforce maintains them). */
export function systemFields(): FieldDescribe[] {
  const readOnly = { createable: false, updateable: false, nillable: false, defaultedOnCreate: true };
  const user = { referenceTo: ['User'], ...readOnly };
  return [
    buildField({ name: 'IsDeleted', type: 'boolean', label: 'Deleted', ...readOnly }),
    buildField({ name: 'CreatedDate', type: 'datetime', label: 'Created Date', ...readOnly }),
    buildField({
      name: 'CreatedById',
      type: 'reference',
      label: 'Created By ID',
      relationshipName: 'CreatedBy',
      ...user,
    }),
    buildField({ name: 'LastModifiedDate', type: 'datetime', label: 'Last Modified Date', ...readOnly }),
    buildField({
      name: 'LastModifiedById',
      type: 'reference',
      label: 'Last Modified By ID',
      relationshipName: 'LastModifiedBy',
      ...user,
    }),
    buildField({ name: 'SystemModstamp', type: 'datetime', label: 'System Modstamp', ...readOnly }),
  ];
}
