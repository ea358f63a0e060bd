import { readFileSync } from 'node:fs';
import type { Portal } from '../model/portal.ts';
import type { PropertyDefinition, PropertyGroup } from '../model/types.ts';
import { seedAuditHistory } from './audit-history.ts';
import { SEED_OWNERS, SEED_PIPELINES } from './owners-pipelines.ts';
import { builtIn, systemSpecs } from './property-builder.ts';
import { seedRecords } from './records.ts';
import { STANDARD_PROPERTIES } from './standard-properties.ts';
import { GROUP_LABELS, standardTypes } from './standard-types.ts';

/** Contact properties as a live account returned them (`GET /crm/v3/schemas/CONTACT`, 2022). */
function contactProperties(): PropertyDefinition[] {
  const url = new URL('./data/contact-properties.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as PropertyDefinition[];
}

function groupsOf(properties: PropertyDefinition[]): PropertyGroup[] {
  const names = [...new Set(properties.map((p) => p.groupName))];
  return names.map((name, i) => ({
    name,
    label: GROUP_LABELS[name] ?? name,
    displayOrder: i,
    archived: false,
  }));
}

/** The custom object type every seeded portal has (`2-3604285`, `p{portalId}_cars`). */
export const SEED_CUSTOM_TYPE = {
  name: 'cars',
  labels: { singular: 'Car', plural: 'Cars' },
  description: 'Cars sold and serviced',
  properties: [
    { name: 'vin', label: 'VIN', hasUniqueValue: true },
    { name: 'make', label: 'Make' },
    { name: 'model', label: 'Model' },
    { name: 'year', label: 'Year', type: 'number', fieldType: 'number' },
    {
      name: 'condition',
      label: 'Condition',
      type: 'enumeration',
      fieldType: 'select',
      options: [
        { label: 'New', value: 'new', displayOrder: 0, hidden: false },
        { label: 'Used', value: 'used', displayOrder: 1, hidden: false },
      ],
    },
    { name: 'first_registered', label: 'First registered', type: 'date', fieldType: 'date' },
  ],
  requiredProperties: ['vin'],
  searchableProperties: ['vin', 'make', 'model'],
  primaryDisplayProperty: 'vin',
  secondaryDisplayProperties: ['make', 'model'],
  associatedObjects: ['0-1', '0-2'],
};

/** Fills a fresh portal: standard types with their properties, owners, pipelines, one custom type, records. */
export function seedPortal(portal: Portal, options: { records: boolean }): void {
  for (const type of standardTypes()) {
    portal.types.register(type);
    let properties: PropertyDefinition[];
    if (type.objectTypeId === '0-1') {
      properties = contactProperties();
    } else {
      const sections = STANDARD_PROPERTIES[type.objectTypeId] ?? [];
      const first = sections[0]?.[0] ?? `${type.singularName.toLowerCase()}information`;
      const idLabel = `${type.labels.singular} ID`;
      properties = [
        ...sections.flatMap(([group, specs]) => specs.map((s, i) => builtIn(s, group, i))),
        ...systemSpecs(type.createdateProperty, type.lastModifiedProperty, idLabel).map((s) =>
          builtIn(s, first, -1),
        ),
      ];
    }
    portal.properties.load(type.objectTypeId, properties, groupsOf(properties));
  }
  portal.owners.load(SEED_OWNERS);
  for (const [typeId, pipelines] of Object.entries(SEED_PIPELINES)) {
    for (const p of pipelines) portal.pipelines.put(typeId, p);
  }
  portal.defineObjectType(SEED_CUSTOM_TYPE, { at: '2024-05-06T07:08:09.101Z' });
  seedAuditHistory(portal);
  if (options.records) seedRecords(portal);
}
