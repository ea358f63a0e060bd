import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { ApiError, type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { ObjectDescribe } from './describe.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** A record ready to send: canonical field names (or `Relationship.ExternalIdField`) → JSON values. */
export type PreparedRecord = Record<string, unknown>;

/** What a field value may be; said in the 400 so the client knows the fix. */
const SHAPES =
  'a string, number, boolean or null; an array of strings for a multi-select picklist; or {"ExternalIdField": value} for a parent reference';

const isFieldValue = (value: unknown): boolean =>
  value === null ||
  ['string', 'number', 'boolean'].includes(typeof value) ||
  (Array.isArray(value) && value.every((v) => typeof v === 'string'));

/**
 * Maps record keys to field names (case-insensitive); parent references (`{"Account": {"Ext__c": 1}}`)
 * become `Account.Ext__c`. An update carrying `attributes` was sent back as get returned it: its
 * non-updateable fields and parent records are dropped rather than refused.
 */
export function prepareRecords(
  meta: ObjectDescribe,
  records: unknown[],
  operation: 'insert' | 'update' | 'upsert' = 'insert',
): PreparedRecord[] {
  const fields = meta.fields;
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  const byRelationship = new Map(
    fields.flatMap((f) => {
      const name = f['relationshipName'];
      return typeof name === 'string' ? [[name.toLowerCase(), name] as const] : [];
    }),
  );
  const hintField = hinter(fields.map((f) => f.name));
  const hintRelationship = hinter([...byRelationship.values()]);
  const unknown: UnknownField[] = [];
  const invalid: Array<{ path: string; field: string }> = [];
  // Every record is prepared before the request's unknown fields and invalid values are thrown.
  const out = records.map((record, index): PreparedRecord => {
    const prepared: PreparedRecord = {};
    if (!isRecord(record)) {
      unknown.push({ path: `/data/${index}`, field: '(not an object)', did_you_mean: null });
      return prepared;
    }
    const asGot = operation === 'update' && 'attributes' in record;
    for (const [key, value] of Object.entries(record)) {
      if (key === 'attributes') continue;
      if (asGot && isRecord(value) && 'attributes' in value) continue;
      const reference = referenceOf(key, value);
      if (reference !== null) {
        const parent = byRelationship.get(reference.relationship.toLowerCase());
        if (parent === undefined) {
          unknown.push({
            path: `/data/${index}/${key}`,
            field: reference.relationship,
            did_you_mean: hintRelationship(reference.relationship),
          });
          continue;
        }
        if (typeof reference.value !== 'string' && typeof reference.value !== 'number')
          invalid.push({ path: `/data/${index}/${key}`, field: key });
        prepared[`${parent}.${reference.field}`] = reference.value;
        continue;
      }
      const field = byName.get(key.toLowerCase());
      if (field === undefined) {
        unknown.push({ path: `/data/${index}/${key}`, field: key, did_you_mean: hintField(key) });
        continue;
      }
      if (asGot && field['updateable'] === false && field.name !== 'Id') continue;
      if (!isFieldValue(value)) invalid.push({ path: `/data/${index}/${key}`, field: field.name });
      prepared[field.name] = value;
    }
    return prepared;
  });
  if (unknown.length > 0) throw noSuchFields(meta, unknown);
  if (invalid.length > 0) {
    const list = invalid
      .slice(0, 10)
      .map((v) => v.path)
      .join(', ');
    throw new ApiError(
      'invalid_value',
      `Field values must be ${SHAPES}. Not so at ${list}${invalid.length > 10 ? ' and more' : ''}.`,
      { details: invalid.slice(0, 100).map((v) => ({ ...v, message: `must be ${SHAPES}` })) },
    );
  }
  return out;
}

/** 400 `unknown_field` naming the fields the object lacks, each with its closest real one. */
export function noSuchFields(meta: ObjectDescribe, unknown: UnknownField[]): ApiError {
  return unknownFields(
    `${meta.name} has no field`,
    unknown,
    `. POST /v1/describe/${meta.name} lists its fields.`,
  );
}

function referenceOf(
  key: string,
  value: unknown,
): { relationship: string; field: string; value: unknown } | null {
  const dot = key.indexOf('.');
  if (dot > 0) return { relationship: key.slice(0, dot), field: key.slice(dot + 1), value };
  if (!isRecord(value)) return null;
  const [first, ...more] = Object.entries(value).filter(([k]) => k !== 'attributes');
  if (first === undefined || more.length > 0) return null;
  return { relationship: key, field: first[0], value: first[1] };
}

/** A prepared record as sObject Collections JSON: parent references nested, picklist arrays joined. */
export function toCollectionsRecord(type: string, record: PreparedRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { attributes: { type } };
  for (const [key, value] of Object.entries(record)) {
    const dot = key.indexOf('.');
    const json = Array.isArray(value) ? value.join(';') : value;
    if (dot > 0) out[key.slice(0, dot)] = { [key.slice(dot + 1)]: json };
    else out[key] = json;
  }
  return out;
}

/** One Bulk CSV cell: null → `#N/A` (set to null), absent → empty (left untouched), Bulk's datetimes. */
export function csvCell(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return '#N/A';
  if (Array.isArray(value)) return value.map(String).join(';');
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    // `2024-01-01T10:00:00.000+0000` (REST's form) → `…+00:00`.
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?[+-]\d{2})(\d{2})$/.exec(value);
    return m === null ? value : `${m[1]}:${m[2]}`;
  }
  return JSON.stringify(value);
}

/** The records' columns (union of their keys, first-seen order) and rows of CSV cells. */
export function toCsvRows(records: PreparedRecord[]): { header: string[]; rows: string[][] } {
  const columns = new Set<string>();
  for (const r of records) for (const k of Object.keys(r)) columns.add(k);
  const header = [...columns];
  return { header, rows: records.map((r) => header.map((h) => csvCell(r[h]))) };
}

/** A Bulk upload's CSV, streamed 200 rows at a time; one column's empty cells are `""`, not skipped blank lines. */
export function toCsv(header: string[], rows: string[][]): Readable {
  const options = { record_delimiter: 'unix', quoted_empty: header.length === 1 } as const;
  const page = SALESFORCE_PROFILE.collectionsMaxRecords;
  return Readable.from(
    (function* () {
      yield Buffer.from(stringify([header], options), 'utf8');
      for (let start = 0; start < rows.length; start += page)
        yield Buffer.from(stringify(rows.slice(start, start + page), options), 'utf8');
    })(),
  );
}
