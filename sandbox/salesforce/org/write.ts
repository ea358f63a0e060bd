import { keyPrefixOf, normalizeId } from './ids.ts';
import type { ObjectMeta } from './meta.ts';
import type { Table } from './store.ts';
import type { FieldDescribe, RecordError, SRecord } from './types.ts';
import { coerce, err } from './values.ts';

/** What validating one record's values needs from the org. */
export interface WriteHost {
  /** A record anywhere in the org by its 18-character id, deleted ones included. */
  lookup(id: string): { table: Table; rec: SRecord } | undefined;
  table(meta: ObjectMeta): Table;
  object(name: string): ObjectMeta | undefined;
  objectByPrefix(prefix: string): ObjectMeta | undefined;
}

export type Mode = 'insert' | 'update';

const NOT_WRITABLE = (names: string[]) =>
  err(
    'INVALID_FIELD_FOR_INSERT_UPDATE',
    `Unable to create/update fields: ${names.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
    names,
  );

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `"Account": {"External_Id__c": "A-1"}`: a parent named by one of its external ids. */
function resolveForeignKey(
  host: WriteHost,
  ref: FieldDescribe,
  value: Record<string, unknown>,
): { id: string } | { error: RecordError } {
  const attrs = value.attributes;
  const typeName = isPlainObject(attrs) && typeof attrs.type === 'string' ? attrs.type : ref.referenceTo[0];
  const target = typeName === undefined ? undefined : host.object(typeName);
  const keys = Object.keys(value).filter((k) => k !== 'attributes');
  const key = keys[0];
  if (target === undefined || key === undefined || keys.length !== 1) {
    return {
      error: err('INVALID_FIELD', `Invalid foreign key relationship name ${ref.relationshipName}`, []),
    };
  }
  const extField = target.field(key);
  const raw = value[key];
  if (extField === undefined || !(extField.externalId || extField.idLookup)) {
    return {
      error: err(
        'INVALID_FIELD',
        `Field name provided, ${key} is not an External ID or indexed field for ${target.name}`,
        [],
      ),
    };
  }
  if (extField.type === 'id' && typeof raw === 'string') {
    const id = normalizeId(raw);
    if (id !== null && host.lookup(id)?.rec.IsDeleted === false) return { id };
  }
  const matches = host.table(target).find(extField, typeof raw === 'number' ? raw : String(raw ?? ''));
  if (matches.length === 1 && matches[0] !== undefined) return { id: matches[0] };
  const shown = String(raw);
  if (matches.length === 0) {
    return {
      error: err(
        'INVALID_FIELD',
        `Foreign key external ID: ${shown} not found for field ${extField.name} in entity ${target.name}`,
        [],
      ),
    };
  }
  return {
    error: err(
      'INVALID_FIELD',
      `Foreign key external ID: ${shown} matched more than one record for field ${extField.name} in entity ${target.name}`,
      [],
    ),
  };
}

function checkReference(host: WriteHost, f: FieldDescribe, id: string): RecordError | null {
  const found = host.lookup(id);
  const targetType = found?.table.meta.name;
  if (found === undefined) {
    const prefixObject = host.objectByPrefix(keyPrefixOf(id));
    if (prefixObject !== undefined && !f.referenceTo.includes(prefixObject.name)) {
      return err('FIELD_INTEGRITY_EXCEPTION', `${f.label}: id value of incorrect type: ${id}`, [f.name]);
    }
    return err('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', []);
  }
  if (targetType === undefined || !f.referenceTo.includes(targetType)) {
    return err('FIELD_INTEGRITY_EXCEPTION', `${f.label}: id value of incorrect type: ${id}`, [f.name]);
  }
  if (found.rec.IsDeleted === true) return err('ENTITY_IS_DELETED', 'entity is deleted', []);
  return null;
}

/**
 * The stored form of the fields a caller gave, or the record's errors: unknown fields, fields
 * the caller may not write, type and length checks, references that must exist.
 */
export function readInput(
  host: WriteHost,
  meta: ObjectMeta,
  input: Record<string, unknown>,
  mode: Mode,
  csv: boolean,
): { values: SRecord; errors: RecordError[] } {
  const values: SRecord = {};
  const errors: RecordError[] = [];
  const notWritable: string[] = [];
  for (const key of Object.keys(input)) {
    if (key === 'attributes') continue;
    let raw = input[key];
    const f = meta.field(key);
    if (f === undefined) {
      // Bulk CSV headers name a parent by external id as `Account.External_Id__c`.
      const dot = key.indexOf('.');
      const relName = dot > 0 ? key.slice(0, dot) : key;
      if (dot > 0) {
        if (csv && mode === 'update' && raw === '') continue;
        raw = raw === '' || raw === '#N/A' ? null : { [key.slice(dot + 1)]: raw };
      }
      const rel = meta.relationship(relName);
      if (rel !== undefined && dot > 0 && raw === null) {
        values[rel.name] = null;
        continue;
      }
      if (rel !== undefined && isPlainObject(raw)) {
        const resolved = resolveForeignKey(host, rel, raw);
        if ('error' in resolved) errors.push(resolved.error);
        else if (mode === 'insert' ? !rel.createable : !rel.updateable) notWritable.push(rel.name);
        else values[rel.name] = resolved.id;
        continue;
      }
      errors.push(err('INVALID_FIELD', `No such column '${key}' on sobject of type ${meta.name}`, []));
      continue;
    }
    // Bulk CSV: an empty cell sets nothing, so an empty cell under a field the caller may not
    // write (a formula, a system field, an export's Id column on insert) is no error; only a
    // value or `#N/A` there is.
    const emptyCell = csv && raw === '';
    if (f.type === 'id') {
      if (mode === 'insert' && !emptyCell) {
        errors.push(err('INVALID_FIELD_FOR_INSERT_UPDATE', 'cannot specify Id in an insert call', ['Id']));
      }
      continue;
    }
    if (emptyCell && mode === 'update') continue;
    if (mode === 'insert' ? !f.createable : !f.updateable) {
      if (emptyCell) continue;
      notWritable.push(f.name);
      continue;
    }
    const c = coerce(f, raw, csv);
    if (!c.ok) {
      errors.push(c.error);
      continue;
    }
    if (f.type === 'reference' && typeof c.value === 'string') {
      const refError = checkReference(host, f, c.value);
      if (refError !== null) {
        errors.push(refError);
        continue;
      }
    }
    values[f.name] = c.value;
  }
  if (notWritable.length > 0) errors.push(NOT_WRITABLE(notWritable));
  return { values, errors };
}

/** REQUIRED_FIELD_MISSING for required fields that are null in the record as it would be saved. */
export function missingRequired(meta: ObjectMeta, rec: SRecord): RecordError | null {
  const missing: string[] = [];
  for (const f of meta.required) {
    const v = rec[f.name];
    if (v === null || v === undefined || v === '') missing.push(f.name);
  }
  if (missing.length === 0) return null;
  return err('REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing);
}

/** DUPLICATE_VALUE when a unique field's value is already another live record's. */
export function duplicateValue(table: Table, rec: SRecord): RecordError | null {
  for (const f of table.meta.indexed) {
    if (!f.unique) continue;
    const v = rec[f.name];
    if (v === null || v === undefined) continue;
    const other = table.find(f, v).find((id) => id !== rec.Id);
    if (other !== undefined) {
      return err(
        'DUPLICATE_VALUE',
        `duplicate value found: ${f.name} duplicates value on record with id: ${other}`,
        [],
      );
    }
  }
  return null;
}

/** Values Salesforce derives: a person's Name from FirstName and LastName. */
export function derive(meta: ObjectMeta, rec: SRecord): void {
  const name = meta.field('Name');
  if (name !== undefined && !name.createable && meta.field('LastName') !== undefined) {
    const parts = [rec.FirstName, rec.LastName].filter((p) => typeof p === 'string' && p !== '');
    rec.Name = parts.length > 0 ? parts.join(' ') : null;
  }
}
