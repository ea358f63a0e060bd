import type { Portal } from '../model/portal.ts';
import type { ObjectTypeDefinition, StoredRecord, ValueWithTimestamp } from '../model/types.ts';

/** HubSpot's `SimplePublicObject` (plus `propertiesWithHistory` / `archivedAt` when they apply). */
export interface PublicObject {
  id: string;
  properties: Record<string, string | null>;
  propertiesWithHistory?: Record<string, ValueWithTimestamp[]>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
}

/** Properties answered whatever was asked: creation date, modification date, `hs_object_id`. */
export function identityProperties(type: ObjectTypeDefinition): string[] {
  return [type.createdateProperty, type.lastModifiedProperty, 'hs_object_id'];
}

/** `properties` query values: repeated (`?properties=a&properties=b`) or comma-separated (`a,b`). */
export function listParam(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const items = Array.isArray(raw) ? raw : [raw];
  return items
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * Names to answer for a read: the type's defaults when none are asked for, else the asked ones
 * that exist (unknown names are silently ignored, as HubSpot documents), always with the identity trio.
 */
export function readNames(
  portal: Portal,
  type: ObjectTypeDefinition,
  requested: string[] | undefined,
): string[] {
  const base =
    requested === undefined || requested.length === 0
      ? type.defaultProperties
      : requested.filter((n) => {
          const def = portal.properties.peek(type.objectTypeId, n);
          return def !== undefined && def.archived !== true;
        });
  return [...new Set([...base, ...identityProperties(type)])];
}

/** Known names among `requested` (for `propertiesWithHistory`). */
export function knownNames(
  portal: Portal,
  type: ObjectTypeDefinition,
  requested: string[] | undefined,
): string[] {
  return (requested ?? []).filter((n) => {
    const def = portal.properties.peek(type.objectTypeId, n);
    return def !== undefined && def.archived !== true;
  });
}

/** Serialises a record with `names` (unset ones as `null`; keys alphabetical as HubSpot sends them). */
export function toPublicObject(
  record: StoredRecord,
  names: string[],
  options: { historyNames?: string[]; nulls?: boolean } = {},
): PublicObject {
  const properties: Record<string, string | null> = {};
  for (const name of [...names].sort()) {
    const v = record.properties[name];
    if (v !== undefined) properties[name] = v;
    else if (options.nulls !== false) properties[name] = null;
  }
  const out: PublicObject = {
    id: record.id,
    properties,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    archived: record.archived,
  };
  if (options.historyNames !== undefined && options.historyNames.length > 0) {
    const history: Record<string, ValueWithTimestamp[]> = {};
    for (const name of [...options.historyNames].sort()) {
      const h = record.history[name];
      if (h !== undefined) history[name] = h.map((e) => ({ ...e }));
    }
    out.propertiesWithHistory = history;
  }
  if (record.archivedAt !== undefined) out.archivedAt = record.archivedAt;
  return out;
}

/** Every stored property (what create answers show: sent values plus those HubSpot computes). */
export function allNames(record: StoredRecord): string[] {
  return Object.keys(record.properties);
}
