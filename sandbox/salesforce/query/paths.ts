import { buildField } from '../org/fields.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { Table } from '../org/store.ts';
import type { FieldDescribe, FieldValue, SRecord } from '../org/types.ts';
import { badRelationship, noSuchColumn } from './errors.ts';

/** What resolving paths needs from the org. */
export interface QueryHost {
  object(name: string): ObjectMeta | undefined;
  lookup(id: string): { table: Table; rec: SRecord } | undefined;
  table(meta: ObjectMeta): Table;
}

/** `Account.Owner.Name` from Contact: two reference hops, then a field. */
export interface FieldPath {
  /** Relationship names as the API spells them (`Account`, `Owner`). */
  relationships: string[];
  /** The reference field behind each relationship, and the object it leads to. */
  hops: Array<{ ref: FieldDescribe; target: ObjectMeta }>;
  field: FieldDescribe;
  /** Canonical dotted path (`Account.Owner.Name`). */
  path: string;
  /** The last hop is polymorphic (`Who`, `What`): the field is one of the Name object's. */
  polymorphic?: boolean;
}

/**
 * The fields of the Name object, what a polymorphic relationship (`Who`, `What`, `Owner` of a
 * Task) reaches without TYPEOF: `Type` is the referenced record's object, the others its own
 * value, null where that object has no such field (object reference, "Name").
 */
const NAME_OBJECT_FIELDS = [
  'Id',
  'Alias',
  'CommunityNickname',
  'Email',
  'FirstName',
  'IsActive',
  'LastName',
  'LastReferencedDate',
  'LastViewedDate',
  'MediumPhotoUrl',
  'Name',
  'NameOrAlias',
  'Phone',
  'ProfileId',
  'RecordTypeId',
  'SmallPhotoUrl',
  'Title',
  'Type',
  'UserRoleId',
  'Username',
];
const isPolymorphic = (ref: FieldDescribe) =>
  ref.polymorphicForeignKey === true || ref.referenceTo.length > 1;

export function resolvePath(host: QueryHost, soql: string, root: ObjectMeta, raw: string): FieldPath {
  const parts = raw.split('.');
  const last = parts.pop() as string;
  let meta = root;
  const hops: FieldPath['hops'] = [];
  const relationships: string[] = [];
  // A path may start with the object's own name or alias (`Account.Name` from Account).
  if (
    parts.length > 0 &&
    parts[0]?.toLowerCase() === root.name.toLowerCase() &&
    root.relationship(parts[0]) === undefined
  ) {
    parts.shift();
  }
  for (const rel of parts) {
    const ref = meta.relationship(rel);
    const targetName = ref?.referenceTo.find((t) => host.object(t) !== undefined);
    const target = targetName === undefined ? undefined : host.object(targetName);
    if (ref === undefined || target === undefined) throw badRelationship(soql, raw, rel);
    hops.push({ ref, target });
    relationships.push(ref.relationshipName as string);
    meta = target;
  }
  const lastHop = hops[hops.length - 1];
  if (lastHop !== undefined && isPolymorphic(lastHop.ref)) {
    const name = NAME_OBJECT_FIELDS.find((f) => f.toLowerCase() === last.toLowerCase());
    if (name === undefined) throw noSuchColumn(soql, raw, 'Name');
    const field =
      meta.field(name) ?? buildField({ name, type: name === 'Id' ? 'id' : 'string', label: name });
    return { relationships, hops, field, path: [...relationships, field.name].join('.'), polymorphic: true };
  }
  const field = meta.field(last);
  if (field === undefined) throw noSuchColumn(soql, parts.length > 0 ? raw : last, meta.name);
  return { relationships, hops, field, path: [...relationships, field.name].join('.') };
}

/** The record at the end of a path's hops (null when a lookup on the way is empty). */
export function follow(host: QueryHost, rec: SRecord, hops: FieldPath['hops']): SRecord | null {
  let cur: SRecord | null = rec;
  for (const hop of hops) {
    const id: FieldValue | undefined = cur[hop.ref.name];
    if (typeof id !== 'string') return null;
    cur = host.lookup(id)?.rec ?? null;
    if (cur === null) return null;
  }
  return cur;
}

export function valueAt(host: QueryHost, rec: SRecord, path: FieldPath): FieldValue {
  if (path.polymorphic === true) return polymorphicValue(host, rec, path);
  const target = path.hops.length === 0 ? rec : follow(host, rec, path.hops);
  return target === null ? null : (target[path.field.name] ?? null);
}

/** A Name-object field through a polymorphic hop: `Type` is the record's object, others its value. */
export function polymorphicValue(host: QueryHost, rec: SRecord, path: FieldPath): FieldValue {
  const parent = follow(host, rec, path.hops.slice(0, -1));
  const last = path.hops[path.hops.length - 1];
  const id = parent === null || last === undefined ? undefined : parent[last.ref.name];
  const found = typeof id === 'string' ? host.lookup(id) : undefined;
  if (found === undefined) return null;
  if (path.field.name === 'Type') return found.table.meta.name;
  const own = found.table.meta.field(path.field.name);
  return own === undefined ? null : (found.rec[own.name] ?? null);
}
