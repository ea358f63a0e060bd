import { deriveRelated } from './derived.ts';
import { normalizeId } from './ids.ts';
import type { ObjectMeta } from './meta.ts';
import type { Table } from './store.ts';
import type { DmlOptions, RecordError, SaveResult, SRecord } from './types.ts';
import { err, formatDateTime } from './values.ts';
import { derive, duplicateValue, missingRequired, readInput, type WriteHost } from './write.ts';

/** An object-specific rule run on the record as it would be saved (FieldPermissions rules, for instance). */
export type Validator = (record: SRecord, op: 'insert' | 'update') => RecordError | null;

export interface DmlHost extends WriteHost {
  newId(meta: ObjectMeta): string;
  ids: { next(prefix: string): string };
  defaultUserId: string;
  validators(meta: ObjectMeta): readonly Validator[];
}

function validate(
  host: DmlHost,
  meta: ObjectMeta,
  rec: SRecord,
  op: 'insert' | 'update',
): RecordError | null {
  for (const v of host.validators(meta)) {
    const e = v(rec, op);
    if (e !== null) return e;
  }
  return null;
}

/** Thrown for request-level failures (unknown object, bad external-id field): rendered as a 4xx error array. */
export class OrgError extends Error {
  readonly errorCode: string;
  readonly status: number;
  constructor(errorCode: string, message: string, status = 400) {
    super(message);
    this.errorCode = errorCode;
    this.status = status;
  }
}

const ROLLED_BACK = err(
  'ALL_OR_NONE_OPERATION_ROLLED_BACK',
  'Record rolled back because not all records were valid and the request was using AllOrNone header',
);

/** Changes made by one DML call, undone in reverse when allOrNone fails. */
type Undo = Array<() => void>;

const fail = (errors: RecordError[]): SaveResult => ({ success: false, errors });

export type InputRecord = Record<string, unknown>;

function objectOf(host: DmlHost, objectName: string | null, input: InputRecord): ObjectMeta {
  const attrs = input.attributes;
  const name =
    objectName ??
    (typeof attrs === 'object' && attrs !== null && 'type' in attrs && typeof attrs.type === 'string'
      ? attrs.type
      : undefined);
  if (name === undefined) throw new OrgError('INVALID_FIELD', 'No SObject Type defined in the sobject data.');
  const meta = host.object(name);
  if (meta === undefined) throw new OrgError('INVALID_TYPE', `sObject type '${name}' is not supported.`);
  return meta;
}

function stamp(rec: SRecord, userId: string, now: string, created: boolean): void {
  if (created) {
    rec.CreatedDate = now;
    rec.CreatedById = userId;
    rec.IsDeleted = false;
  }
  rec.LastModifiedDate = now;
  rec.LastModifiedById = userId;
  rec.SystemModstamp = now;
}

function insertOne(
  host: DmlHost,
  meta: ObjectMeta,
  input: InputRecord,
  opts: DmlOptions,
  undo: Undo,
): SaveResult {
  const { values, errors } = readInput(host, meta, input, 'insert', opts.csv === true);
  if (errors.length > 0) return fail(errors);
  const userId = opts.userId ?? host.defaultUserId;
  for (const f of meta.defaulted) {
    if (values[f.name] !== undefined && values[f.name] !== null) continue;
    if (f.type === 'boolean') {
      if (values[f.name] === undefined) values[f.name] = f.defaultValue === true;
    } else {
      const d = f.picklistValues.find((p) => p.defaultValue);
      if (d !== undefined && values[f.name] === undefined) values[f.name] = d.value;
    }
  }
  if (values.OwnerId === undefined && meta.field('OwnerId')?.createable) values.OwnerId = userId;
  derive(meta, values);
  deriveRelated(host, meta, values, true);
  const missing = missingRequired(meta, values);
  if (missing !== null) return fail([missing]);
  const table = host.table(meta);
  const id = host.newId(meta);
  const rec: SRecord = { Id: id, ...values };
  const dup = duplicateValue(table, rec) ?? validate(host, meta, rec, 'insert');
  if (dup !== null) return fail([dup]);
  stamp(rec, userId, formatDateTime(new Date()), true);
  table.put(rec);
  undo.push(() => table.remove(id));
  return { id, success: true, errors: [] };
}

function updateOne(
  host: DmlHost,
  meta: ObjectMeta | null,
  rawId: unknown,
  input: InputRecord,
  opts: DmlOptions,
  undo: Undo,
): SaveResult {
  const id = typeof rawId === 'string' ? normalizeId(rawId) : null;
  if (id === null) return fail([err('MALFORMED_ID', `malformed id ${String(rawId ?? '')}`, [])]);
  const found = host.lookup(id);
  if (found === undefined || (meta !== null && found.table.meta !== meta)) {
    if (meta !== null && host.objectByPrefix(id.slice(0, 3)) !== meta) {
      return fail([err('MALFORMED_ID', `${meta.name} ID: id value of incorrect type: ${id}`, ['Id'])]);
    }
    return fail([err('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', [])]);
  }
  const { table, rec: old } = found;
  if (old.IsDeleted === true) return fail([err('ENTITY_IS_DELETED', 'entity is deleted', [])]);
  const { values, errors } = readInput(host, table.meta, input, 'update', opts.csv === true);
  if (errors.length > 0) return fail(errors);
  const rec: SRecord = { ...old, ...values };
  derive(table.meta, rec);
  deriveRelated(host, table.meta, rec, false);
  const missing = missingRequired(table.meta, rec);
  if (missing !== null) return fail([missing]);
  const dup = duplicateValue(table, rec) ?? validate(host, table.meta, rec, 'update');
  if (dup !== null) return fail([dup]);
  stamp(rec, opts.userId ?? host.defaultUserId, formatDateTime(new Date()), false);
  table.put(rec);
  undo.push(() => table.put(old));
  return { id, success: true, errors: [] };
}

function idOf(input: InputRecord): unknown {
  for (const k of Object.keys(input)) if (k.toLowerCase() === 'id') return input[k];
  return undefined;
}

function withoutId(input: InputRecord): InputRecord {
  const out: InputRecord = {};
  for (const k of Object.keys(input)) if (k.toLowerCase() !== 'id') out[k] = input[k];
  return out;
}

/**
 * allOrNone: on any failure undo everything; the others report the rollback. An upsert's rows keep
 * `created` as the operation they would have been: true where the key matched no record (the row
 * that failed too), as Salesforce answers and jsforce's own suite asserts.
 */
function finish(
  results: SaveResult[],
  undo: Undo,
  opts: DmlOptions,
  wouldCreate?: readonly boolean[],
): SaveResult[] {
  if (opts.allOrNone !== true || results.every((r) => r.success)) return results;
  for (let i = undo.length - 1; i >= 0; i--) undo[i]?.();
  return results.map((r, i) => {
    const out: SaveResult = r.success
      ? { success: false, errors: [ROLLED_BACK] }
      : { success: false, errors: r.errors };
    if (wouldCreate !== undefined) out.created = wouldCreate[i] === true;
    return out;
  });
}

export function insertRecords(
  host: DmlHost,
  objectName: string | null,
  records: InputRecord[],
  opts: DmlOptions,
): SaveResult[] {
  const undo: Undo = [];
  const metas = records.map((r) => objectOf(host, objectName, r));
  const results = records.map((r, i) => insertOne(host, metas[i] as ObjectMeta, r, opts, undo));
  return finish(results, undo, opts);
}

export function updateRecords(
  host: DmlHost,
  objectName: string | null,
  records: InputRecord[],
  opts: DmlOptions,
): SaveResult[] {
  const undo: Undo = [];
  const meta = objectName === null ? null : objectOf(host, objectName, {});
  const results = records.map((r) => updateOne(host, meta, idOf(r), withoutId(r), opts, undo));
  return finish(results, undo, opts);
}

/** Live records of `meta` whose external-id field equals `value` (idLookup fields work too). */
export function findByExternalId(
  host: DmlHost,
  meta: ObjectMeta,
  fieldName: string,
  value: unknown,
): string[] {
  const f = meta.field(fieldName);
  if (f === undefined || !(f.externalId || f.idLookup)) {
    throw new OrgError(
      'NOT_FOUND',
      `Provided external ID field does not exist or is not accessible: ${fieldName}`,
      404,
    );
  }
  if (f.type === 'id') {
    const id = typeof value === 'string' ? normalizeId(value) : null;
    const found = id === null ? undefined : host.lookup(id);
    return found !== undefined && found.table.meta === meta && found.rec.IsDeleted !== true
      ? [id as string]
      : [];
  }
  if (value === null || value === undefined || typeof value === 'object') return [];
  return host.table(meta).find(f, typeof value === 'number' ? value : String(value));
}

export function upsertRecords(
  host: DmlHost,
  objectName: string,
  externalIdField: string,
  records: InputRecord[],
  opts: DmlOptions,
): SaveResult[] {
  const meta = objectOf(host, objectName, {});
  const extField = meta.field(externalIdField);
  if (extField === undefined || !(extField.externalId || extField.idLookup)) {
    throw new OrgError(
      'NOT_FOUND',
      `Provided external ID field does not exist or is not accessible: ${externalIdField}`,
      404,
    );
  }
  const keyOf = (r: InputRecord): unknown => {
    for (const k of Object.keys(r)) if (k.toLowerCase() === extField.name.toLowerCase()) return r[k];
    return undefined;
  };
  const seen = new Map<string, number>();
  for (const r of records) {
    const k = String(keyOf(r) ?? '').toLowerCase();
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  const undo: Undo = [];
  const wouldCreate: boolean[] = [];
  const results = records.map((r, i): SaveResult => {
    const value = keyOf(r);
    const blank = value === undefined || value === null || value === '';
    if (blank && extField.type === 'id') {
      // Upsert on Id with no Id creates the record, as Salesforce documents.
      wouldCreate[i] = true;
      const res = insertOne(host, meta, withoutId(r), opts, undo);
      return { ...res, created: res.success };
    }
    if (blank) {
      return {
        success: false,
        errors: [err('MISSING_ARGUMENT', `${extField.name} not specified`, [])],
        created: false,
      };
    }
    if (extField.type === 'id') {
      // A record's Id is never chosen by its creator: an upsert keyed on Id that names one updates
      // it, and fails as an update does when the Id is malformed, of another object, deleted or of
      // no record (INVALID_CROSS_REFERENCE_KEY). Only a row without an Id creates.
      const res = updateOne(host, meta, value, withoutId(r), opts, undo);
      return { ...res, created: false };
    }
    if ((seen.get(String(value).toLowerCase()) ?? 0) > 1) {
      return {
        success: false,
        errors: [
          err('DUPLICATE_EXTERNAL_ID', `Duplicate external id specified: ${String(value)}`, [extField.name]),
        ],
        created: false,
      };
    }
    const matches = findByExternalId(host, meta, extField.name, value);
    if (matches.length > 1) {
      return {
        success: false,
        errors: [
          err(
            'DUPLICATE_EXTERNAL_ID',
            `${extField.label}: more than one record found for external id field: [${matches.join(', ')}]`,
            [extField.name],
          ),
        ],
        created: false,
      };
    }
    const match = matches[0];
    if (match === undefined) {
      wouldCreate[i] = true;
      const res = insertOne(host, meta, r, opts, undo);
      return { ...res, created: res.success };
    }
    const res = updateOne(host, meta, match, withoutId(r), opts, undo);
    return { ...res, created: false };
  });
  return finish(results, undo, opts, wouldCreate);
}

export function deleteRecords(host: DmlHost, ids: unknown[], opts: DmlOptions): SaveResult[] {
  const undo: Undo = [];
  const userId = opts.userId ?? host.defaultUserId;
  const results = ids.map((raw): SaveResult => {
    const id = typeof raw === 'string' ? normalizeId(raw) : null;
    if (id === null) return fail([err('MALFORMED_ID', `malformed id ${String(raw)}`, [])]);
    const found = host.lookup(id);
    if (found === undefined)
      return fail([err('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', [])]);
    const { table, rec: old } = found;
    if (old.IsDeleted === true) return fail([err('ENTITY_IS_DELETED', 'entity is deleted', [])]);
    const rec: SRecord = { ...old, IsDeleted: true };
    stamp(rec, userId, formatDateTime(new Date()), false);
    table.put(rec);
    undo.push(() => table.put(old));
    return { id, success: true, errors: [] };
  });
  return finish(results, undo, opts);
}

/** Brings deleted records back from the recycle bin. */
export function undeleteRecords(host: DmlHost, ids: string[], opts: DmlOptions): SaveResult[] {
  const undo: Undo = [];
  const results = ids.map((raw): SaveResult => {
    const id = normalizeId(raw);
    const found = id === null ? undefined : host.lookup(id);
    if (id === null || found === undefined)
      return fail([err('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', [])]);
    if (found.rec.IsDeleted !== true)
      return fail([err('UNDELETE_FAILED', 'Entity is not in the recycle bin', [])]);
    const table: Table = found.table;
    const old = found.rec;
    const dup = duplicateValue(table, { ...old, IsDeleted: false });
    if (dup !== null) return fail([dup]);
    table.put({ ...old, IsDeleted: false });
    undo.push(() => table.put(old));
    return { id, success: true, errors: [] };
  });
  return finish(results, undo, opts);
}
