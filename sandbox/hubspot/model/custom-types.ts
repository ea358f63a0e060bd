import type { PropertyInput } from './properties.ts';
import type {
  AssociationDefinition,
  ObjectTypeDefinition,
  PropertyDefinition,
  PropertyGroup,
} from './types.ts';

/** HubSpot's `ObjectSchemaEgg`, already validated by the Schemas API. */
export interface ObjectSchemaInput {
  name: string;
  labels: { singular: string; plural: string };
  description?: string;
  /** Per-property `type` defaults to `string` and `fieldType` to `text`, as HubSpot does. */
  properties: (Omit<PropertyInput, 'type' | 'fieldType' | 'groupName'> &
    Partial<Pick<PropertyInput, 'type' | 'fieldType' | 'groupName'>>)[];
  requiredProperties: string[];
  searchableProperties?: string[];
  primaryDisplayProperty?: string;
  secondaryDisplayProperties?: string[];
  associatedObjects: string[];
  allowsSensitiveProperties?: boolean;
}

export interface CustomTypeParts {
  type: ObjectTypeDefinition;
  properties: PropertyDefinition[];
  groups: PropertyGroup[];
}

const READ_ONLY = { archivable: true, readOnlyDefinition: true, readOnlyValue: true };

/** System properties every custom object gets (as recorded from a live `GET /crm/v3/schemas/2-…`). */
const SYSTEM_PROPERTIES: [
  name: string,
  label: string,
  type: string,
  fieldType: string,
  readOnlyValue: boolean,
][] = [
  ['hs_all_accessible_team_ids', 'All teams', 'enumeration', 'checkbox', true],
  ['hs_all_assigned_business_unit_ids', 'Brands', 'enumeration', 'checkbox', false],
  ['hs_created_by_user_id', 'Created by user ID', 'number', 'number', true],
  ['hs_createdate', 'Object create date/time', 'datetime', 'date', true],
  ['hs_lastmodifieddate', 'Object last modified date/time', 'datetime', 'date', true],
  ['hs_merged_object_ids', 'Merged object IDs', 'enumeration', 'checkbox', true],
  ['hs_object_id', 'Record ID', 'number', 'number', true],
  ['hs_unique_creation_key', 'Unique creation key', 'string', 'text', true],
  ['hs_updated_by_user_id', 'Updated by user ID', 'number', 'number', true],
  [
    'hs_user_ids_of_all_notification_followers',
    'User IDs of all notification followers',
    'enumeration',
    'checkbox',
    true,
  ],
  [
    'hs_user_ids_of_all_notification_unfollowers',
    'User IDs of all notification unfollowers',
    'enumeration',
    'checkbox',
    true,
  ],
  ['hs_user_ids_of_all_owners', 'User IDs of all owners', 'enumeration', 'checkbox', true],
];

/**
 * Builds a custom object type with its property group (`{name}_information`), the schema's
 * properties and HubSpot's system properties. The caller registers the parts.
 */
export function buildCustomType(
  portalId: number,
  ids: { objectTypeId: string; id: string },
  schema: ObjectSchemaInput,
  at: string,
  userId: string,
): CustomTypeParts {
  const groupName = `${schema.name}_information`;
  const groups: PropertyGroup[] = [
    { name: groupName, label: `${schema.labels.singular} information`, displayOrder: -1, archived: false },
  ];
  const own: PropertyDefinition[] = schema.properties.map((p) => ({
    description: '',
    options: [],
    displayOrder: -1,
    calculated: false,
    externalOptions: false,
    hasUniqueValue: false,
    hidden: false,
    formField: true,
    ...p,
    type: p.type ?? 'string',
    fieldType: p.fieldType ?? 'text',
    groupName: p.groupName ?? groupName,
    archived: false,
    createdUserId: userId,
    updatedUserId: userId,
    createdAt: at,
    updatedAt: at,
    modificationMetadata: { archivable: true, readOnlyDefinition: false, readOnlyValue: false },
  }));
  const system: PropertyDefinition[] = SYSTEM_PROPERTIES.map(
    ([name, label, type, fieldType, readOnlyValue]) => ({
      name,
      label,
      type,
      fieldType,
      description: '',
      groupName,
      options: [],
      displayOrder: -1,
      calculated: false,
      externalOptions: false,
      hasUniqueValue: name === 'hs_unique_creation_key',
      hidden: false,
      hubspotDefined: true,
      modificationMetadata: { ...READ_ONLY, readOnlyValue },
      formField: false,
    }),
  );
  const associations: AssociationDefinition[] = schema.associatedObjects.flatMap((to, i) => [
    {
      id: String(2 * i + 1),
      fromObjectTypeId: ids.objectTypeId,
      toObjectTypeId: to,
      name: `${schema.name}_to_${to}`,
      cardinality: 'ONE_TO_MANY',
      inverseCardinality: 'ONE_TO_MANY',
      createdAt: null,
      updatedAt: null,
    },
    {
      id: String(2 * i + 2),
      fromObjectTypeId: to,
      toObjectTypeId: ids.objectTypeId,
      name: `${schema.name}_to_${to}`,
      cardinality: 'ONE_TO_MANY',
      inverseCardinality: 'ONE_TO_MANY',
      createdAt: null,
      updatedAt: null,
    },
  ]);
  const primary = schema.primaryDisplayProperty ?? schema.requiredProperties[0];
  const type: ObjectTypeDefinition = {
    objectTypeId: ids.objectTypeId,
    id: ids.id,
    name: schema.name,
    fullyQualifiedName: `p${portalId}_${schema.name}`,
    singularName: schema.name.toUpperCase(),
    labels: { ...schema.labels },
    ...(schema.description !== undefined ? { description: schema.description } : {}),
    metaType: 'PORTAL_SPECIFIC',
    custom: true,
    requiredProperties: [...schema.requiredProperties],
    searchableProperties: [...(schema.searchableProperties ?? [])],
    ...(primary !== undefined ? { primaryDisplayProperty: primary } : {}),
    secondaryDisplayProperties: [...(schema.secondaryDisplayProperties ?? [])],
    associations,
    ...(schema.allowsSensitiveProperties !== undefined
      ? { allowsSensitiveProperties: schema.allowsSensitiveProperties }
      : {}),
    restorable: true,
    archived: false,
    createdAt: at,
    updatedAt: at,
    createdByUserId: Number(userId),
    updatedByUserId: Number(userId),
    createdateProperty: 'hs_createdate',
    lastModifiedProperty: 'hs_lastmodifieddate',
    defaultProperties: [],
    queryProperties: [...(schema.searchableProperties ?? []), ...(primary !== undefined ? [primary] : [])],
    readOnly: false,
    aliases: [`p_${schema.name}`],
  };
  return { type, properties: [...own, ...system], groups };
}
