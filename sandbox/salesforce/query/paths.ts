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
}

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
  const target = path.hops.length === 0 ? rec : follow(host, rec, path.hops);
  return target === null ? null : (target[path.field.name] ?? null);
}
