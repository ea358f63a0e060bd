import type { RecordError } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { HubSpotApi, PropertyInfo } from './connection-state.ts';
import { checkedProperties, type ObjectRef } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { formatValue, OptionHints } from './values.ts';
import { type CreateAssociation, failed, malformedId, type Outcome, type Prepared } from './write-results.ts';

/** Where a write's unknown property names send the client. */
export const describeHint = (object: ObjectRef) => `. POST /v1/describe/${object.name} lists its properties.`;

export const ID_KEYS = new Set(['id', 'hs_object_id']);

/** Keys of HubSpot's record shape around `properties`; none is a property. */
const RECORD_SHAPE_KEYS = new Set([
  'createdat',
  'updatedat',
  'archived',
  'archivedat',
  'propertieswithhistory',
  'associations',
]);

/** A record as get returned it, flattened to its id and properties; any other record as is. */
function unwrapRecordShape(record: unknown): unknown {
  if (!isRecord(record) || !isRecord(record['properties'])) return record;
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'properties' && !RECORD_SHAPE_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  for (const [key, value] of Object.entries(record['properties'])) {
    if (!ID_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  return flat;
}

/** Unknown property names fail the request (400 with hints); a value HubSpot would refuse, its record. */
export async function prepare(
  api: HubSpotApi,
  object: ObjectRef,
  records: unknown[],
  mode: 'insert' | 'update',
): Promise<{ prepared: Prepared[]; refused: Outcome }> {
  // Records sent back as get returned them carry read-only values the client did not choose:
  // those are dropped rather than refused.
  const names = new Map<string, string>();
  const split = records.map((r, index) => {
    const flat = mode === 'update' ? unwrapRecordShape(r) : r;
    const { rest, associations } =
      mode === 'insert' && isRecord(flat)
        ? takeAssociations(flat, index)
        : { rest: isRecord(flat) ? flat : {}, associations: undefined };
    let id: string | undefined;
    const values: Array<[string, unknown]> = [];
    for (const [key, raw] of Object.entries(rest)) {
      if (!ID_KEYS.has(key.toLowerCase())) {
        values.push([key, raw]);
        if (!names.has(key)) names.set(key, `/data/${index}/${key}`);
      } else if (mode === 'insert') {
        throw new ApiError(
          'invalid_body',
          `insert creates records: record ${index} has "${key}". Leave ids out, or use update (or upsert with match_key "id").`,
          { details: [{ path: `/data/${index}/${key}`, message: 'not allowed on insert' }] },
        );
      } else id = String(raw);
    }
    return { index, id, values, associations, fromGet: flat !== r };
  });
  const byLower = await checkedProperties(api, object, [...names], describeHint(object));

  const hints = new OptionHints();
  const prepared: Prepared[] = [];
  const refused: Outcome = new Map();
  for (const { index, id, values, associations, fromGet } of split) {
    const errors: RecordError[] = [];
    const properties: Record<string, string> = {};
    for (const [key, raw] of values) {
      const property = byLower.get(key.toLowerCase()) as PropertyInfo;
      if (property.readOnlyValue && fromGet) continue;
      const formatted = formatValue(property, raw, hints);
      if (formatted.ok) properties[property.name] = formatted.value;
      else errors.push(formatted.error);
    }
    if (mode === 'update' && (id === undefined || !HUBSPOT_PROFILE.idPattern.test(id))) {
      errors.unshift(malformedId(String(id), ['id']));
    }
    if (errors.length > 0) refused.set(index, failed(id, errors));
    else prepared.push({ index, id, properties, associations });
  }
  return { prepared, refused };
}

const SHAPE =
  'a list of {"to": {"id": "<record id>"}, "types": [{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": <id>}]}';

const invalid = (path: string, message: string) =>
  new ApiError(
    'invalid_body',
    `${path}: ${message} Send ${SHAPE}; GET /crm/v4/associations/{from}/{to}/labels (through /v1/proxy) lists the type ids.`,
    { details: [{ path, message }] },
  );

function entryOf(raw: unknown, path: string): CreateAssociation {
  const to = isRecord(raw) && isRecord(raw['to']) ? raw['to']['id'] : undefined;
  if (typeof to !== 'string' && typeof to !== 'number')
    throw invalid(`${path}/to/id`, 'needs the id of the record to associate.');
  const types = isRecord(raw) ? raw['types'] : undefined;
  if (!Array.isArray(types) || types.length === 0)
    throw invalid(`${path}/types`, 'needs at least one association type.');
  return {
    to: { id: String(to) },
    types: types.map((t, j) => {
      const id = isRecord(t) ? t['associationTypeId'] : undefined;
      const category = isRecord(t) ? t['associationCategory'] : undefined;
      if (typeof id !== 'number' || !Number.isInteger(id))
        throw invalid(`${path}/types/${j}/associationTypeId`, 'must be an integer association type id.');
      if (category !== undefined && typeof category !== 'string')
        throw invalid(
          `${path}/types/${j}/associationCategory`,
          'must be HUBSPOT_DEFINED, USER_DEFINED or INTEGRATOR_DEFINED.',
        );
      return { ...(category === undefined ? {} : { associationCategory: category }), associationTypeId: id };
    }),
  };
}

/** The record without its `associations` key, and the associations checked (undefined when absent). */
export function takeAssociations(
  record: Record<string, unknown>,
  index: number,
): { rest: Record<string, unknown>; associations: CreateAssociation[] | undefined } {
  const key = Object.keys(record).find((k) => k.toLowerCase() === 'associations');
  if (key === undefined) return { rest: record, associations: undefined };
  const raw = record[key];
  const path = `/data/${index}/${key}`;
  if (!Array.isArray(raw)) throw invalid(path, 'must be a list.');
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
  return { rest, associations: raw.map((entry, i) => entryOf(entry, `${path}/${i}`)) };
}
