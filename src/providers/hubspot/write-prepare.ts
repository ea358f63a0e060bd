import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { ApiError, type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import type { HandlerCall } from '../adapter.ts';
import type { PerConnectionState, PropertyInfo } from './connection-state.ts';
import { splitAssociations } from './create-associations.ts';
import { type ObjectRef, propertyInfos } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { formatValue, OptionHints } from './values.ts';
import { fail, isRecord, type Outcome, type Prepared } from './write-results.ts';

// Records of an insert or update checked against the type's properties and formatted for HubSpot.

/** Property lookup by name, case-insensitive, refreshed once when a name is unknown. */
export async function propertiesOf(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  names: Iterable<string>,
): Promise<Map<string, PropertyInfo>> {
  const index = (list: PropertyInfo[]) => new Map(list.map((p) => [p.name.toLowerCase(), p]));
  let byLower = index(await propertyInfos(hs, call.session, object));
  const wanted = [...names];
  if (wanted.some((n) => !byLower.has(n.toLowerCase()))) {
    byLower = index(await propertyInfos(hs, call.session, object, { refresh: true }));
  }
  return byLower;
}

/** 400 naming every property the type lacks, each with the closest real one. */
export function unknownProperties(
  object: ObjectRef,
  byLower: Map<string, PropertyInfo>,
  names: Map<string, string>,
): void {
  const unknown: UnknownField[] = [];
  const hint = hinter([...byLower.values()].map((p) => p.name));
  for (const [name, path] of names) {
    if (!byLower.has(name.toLowerCase())) unknown.push({ path, field: name, did_you_mean: hint(name) });
  }
  if (unknown.length > 0) {
    throw unknownFields(
      `HubSpot ${object.name} have no property`,
      unknown,
      `. POST /v1/describe/${object.name} lists its properties.`,
    );
  }
}

export const ID_KEYS = new Set(['id', 'hs_object_id']);

/** Keys of HubSpot's record shape (as get answers it) around `properties`; none is a property. */
const RECORD_SHAPE_KEYS = new Set([
  'createdat',
  'updatedat',
  'archived',
  'archivedat',
  'propertieswithhistory',
  'associations',
]);

/**
 * A record as get returned it (`{"id", "properties": {…}, "createdAt", …}`) as the flat record an
 * update takes: its id and its properties. Any other record is returned as is.
 */
function unwrapRecordShape(record: unknown): unknown {
  if (!isRecord(record) || !isRecord(record['properties'])) return record;
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (ID_KEYS.has(key.toLowerCase())) flat[key] = value;
    else if (key !== 'properties' && !RECORD_SHAPE_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  for (const [key, value] of Object.entries(record['properties'])) {
    if (!ID_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  return flat;
}

/** Each property name the records use, with the path of its first use; insert refuses ids. */
function propertyNames(records: unknown[], mode: 'insert' | 'update'): Map<string, string> {
  const names = new Map<string, string>();
  records.forEach((r, i) => {
    if (!isRecord(r)) return;
    for (const k of Object.keys(r)) {
      if (ID_KEYS.has(k.toLowerCase())) {
        if (mode === 'insert') {
          throw new ApiError(
            'invalid_body',
            `insert creates records: record ${i} has "${k}". Leave ids out, or use update (or upsert with match_key "id").`,
            { details: [{ path: `/data/${i}/${k}`, message: 'not allowed on insert' }] },
          );
        }
        continue;
      }
      if (!names.has(k)) names.set(k, `/data/${i}/${k}`);
    }
  });
  return names;
}

/**
 * Checks and formats the records of an insert or update: unknown property names fail the request
 * (400 with hints, like Salesforce's unknown fields); a value HubSpot would refuse fails its record
 * only. Updates need an `id` of digits.
 */
export async function prepare(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  records: unknown[],
  mode: 'insert' | 'update',
): Promise<{ prepared: Prepared[]; refused: Outcome }> {
  // Records sent back as get returned them carry read-only values (createdate, …): those are
  // dropped rather than refused, since the client did not choose to send them.
  const fromGet = new Set<number>();
  if (mode === 'update') {
    records = records.map((r, i) => {
      const flat = unwrapRecordShape(r);
      if (flat !== r) fromGet.add(i);
      return flat;
    });
  }
  const split = splitAssociations(records, mode);
  records = split.records;
  const names = propertyNames(records, mode);
  const byLower = await propertiesOf(hs, call, object, names.keys());
  unknownProperties(object, byLower, names);

  const hints = new OptionHints();
  const prepared: Prepared[] = [];
  const refused: Outcome = new Map();
  const one = (r: unknown, index: number) => {
    const outcome = prepareOne(r, index, mode, byLower, hints, fromGet.has(index));
    if ('success' in outcome) refused.set(index, outcome);
    else {
      const associations = split.links.get(index);
      prepared.push({ ...outcome, ...(associations && { associations }) });
    }
  };
  records.forEach(one);
  return { prepared, refused };
}

/** One record formatted for HubSpot, or its refusal (a value HubSpot would refuse, a malformed id). */
function prepareOne(
  r: unknown,
  index: number,
  mode: 'insert' | 'update',
  byLower: Map<string, PropertyInfo>,
  hints: OptionHints,
  fromGet: boolean,
): Omit<Prepared, 'associations'> | SaveResult {
  const record = isRecord(r) ? r : {};
  let id: string | undefined;
  const errors: RecordError[] = [];
  const properties: Record<string, string> = {};
  for (const [key, raw] of Object.entries(record)) {
    if (ID_KEYS.has(key.toLowerCase())) {
      id = String(raw);
      continue;
    }
    const property = byLower.get(key.toLowerCase()) as PropertyInfo;
    if (property.readOnlyValue && fromGet) continue;
    const formatted = formatValue(property, raw, hints);
    if (formatted.ok) properties[property.name] = formatted.value;
    else errors.push(formatted.error);
  }
  if (mode === 'update' && (id === undefined || !HUBSPOT_PROFILE.idPattern.test(id))) {
    errors.unshift(
      fail('MALFORMED_ID', `"${String(id).slice(0, 50)}" is not a HubSpot record id (decimal digits).`, [
        'id',
      ]),
    );
  }
  if (errors.length > 0) {
    return { ...(mode === 'update' && id !== undefined ? { id } : {}), success: false, errors };
  }
  return { index, ...(mode === 'update' ? { id: id as string } : {}), properties };
}
