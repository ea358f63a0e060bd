import type { PropertyDefinition, PropertyOption } from '../model/types.ts';

/** Compact description of a built-in property: `[name, label, type, fieldType, extras?]`. */
export type PropertySpec = [
  name: string,
  label: string,
  type: string,
  fieldType: string,
  extras?: Partial<PropertyDefinition> & { readOnly?: boolean; optionValues?: string[] },
];

/** Deterministic timestamps for built-in definitions (live ones show dates like these). */
const DEFINED_AT = '2019-08-06T02:41:08.204Z';
const UPDATED_AT = '2023-04-11T14:09:52.117Z';

const label = (value: string): string =>
  value
    .replace(/^hs_/, '')
    .split('_')
    .map((w) => (w === '' ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');

export function options(values: string[]): PropertyOption[] {
  return values.map((value, i) => ({ label: label(value), value, displayOrder: i, hidden: false }));
}

/** A built-in property in the shape HubSpot returns for `hubspotDefined` properties. */
export function builtIn(spec: PropertySpec, groupName: string, displayOrder: number): PropertyDefinition {
  const [name, lbl, type, fieldType, extras = {}] = spec;
  const { readOnly, optionValues, ...rest } = extras;
  const opts =
    optionValues !== undefined
      ? options(optionValues)
      : type === 'bool'
        ? [
            { label: 'True', value: 'true', displayOrder: 0, hidden: false },
            { label: 'False', value: 'false', displayOrder: 1, hidden: false },
          ]
        : [];
  return {
    updatedAt: UPDATED_AT,
    createdAt: DEFINED_AT,
    name,
    label: lbl,
    type,
    fieldType,
    description: '',
    groupName,
    options: opts,
    displayOrder,
    calculated: false,
    externalOptions: false,
    hasUniqueValue: false,
    hidden: false,
    hubspotDefined: true,
    modificationMetadata: { archivable: true, readOnlyDefinition: true, readOnlyValue: readOnly ?? false },
    formField: !readOnly,
    ...rest,
  };
}

/** The identity trio and bookkeeping properties every standard type has. */
export function systemSpecs(createdate: string, lastModified: string, idLabel: string): PropertySpec[] {
  return [
    [createdate, 'Create Date', 'datetime', 'date', { readOnly: true }],
    [lastModified, 'Last Modified Date', 'datetime', 'date', { readOnly: true }],
    [
      'hs_object_id',
      idLabel,
      'number',
      'number',
      {
        readOnly: true,
        calculated: true,
        description: 'The unique ID for this record. This value is set automatically by HubSpot.',
      },
    ],
    ['hs_created_by_user_id', 'Created by user ID', 'number', 'number', { readOnly: true }],
    ['hs_updated_by_user_id', 'Updated by user ID', 'number', 'number', { readOnly: true }],
    ['hs_merged_object_ids', 'Merged record IDs', 'enumeration', 'checkbox', { readOnly: true }],
    [
      'hs_unique_creation_key',
      'Unique creation key',
      'string',
      'text',
      { readOnly: true, hasUniqueValue: true },
    ],
  ];
}

export const OWNER: Partial<PropertyDefinition> = { externalOptions: true, referencedObjectType: 'OWNER' };
