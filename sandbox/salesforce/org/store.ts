import type { ObjectMeta } from './meta.ts';
import type { FieldDescribe, FieldValue, SRecord } from './types.ts';

/** Index key of a value: external ids compare case-insensitively unless the field says otherwise. */
export function indexKey(f: FieldDescribe, v: FieldValue): string | null {
  if (v === null) return null;
  const s = String(v);
  return f.caseSensitive ? s : s.toLowerCase();
}

/**
 * The records of one object, live and deleted (the recycle bin: `IsDeleted = true`), in insertion
 * order, with an index per external-id / unique field over the live ones.
 */
export class Table {
  readonly meta: ObjectMeta;
  readonly rows = new Map<string, SRecord>();
  #indexes = new Map<string, Map<string, Set<string>>>();
  /** Told the id of each record stored or removed (the org's journal of changes). */
  readonly #touched: (id: string) => void;

  constructor(meta: ObjectMeta, touched: (id: string) => void = () => {}) {
    this.meta = meta;
    this.#touched = touched;
    this.reindex();
  }

  /** Rebuilds indexes (after a field was added). */
  reindex(): void {
    this.#indexes.clear();
    for (const f of this.meta.indexed) this.#indexes.set(f.name, new Map());
    for (const rec of this.rows.values()) if (rec.IsDeleted !== true) this.#index(rec, 1);
  }

  get(id: string): SRecord | undefined {
    return this.rows.get(id);
  }

  /** Ids of live records whose `field` equals `value` (field must be indexed). */
  find(field: FieldDescribe, value: FieldValue): string[] {
    const key = indexKey(field, value);
    if (key === null) return [];
    const ix = this.#indexes.get(field.name);
    if (ix === undefined) {
      // Not indexed (an idLookup field such as Name): scan.
      const out: string[] = [];
      for (const [id, rec] of this.rows) {
        if (rec.IsDeleted !== true && indexKey(field, rec[field.name] ?? null) === key) out.push(id);
      }
      return out;
    }
    return [...(ix.get(key) ?? [])];
  }

  /** Stores `rec` (insert or replace), keeping the indexes right. */
  put(rec: SRecord): void {
    const id = rec.Id as string;
    const old = this.rows.get(id);
    if (old !== undefined && old.IsDeleted !== true) this.#index(old, -1);
    this.rows.set(id, rec);
    if (rec.IsDeleted !== true) this.#index(rec, 1);
    this.#touched(id);
  }

  remove(id: string): void {
    const old = this.rows.get(id);
    if (old === undefined) return;
    if (old.IsDeleted !== true) this.#index(old, -1);
    this.rows.delete(id);
    this.#touched(id);
  }

  clear(): void {
    for (const id of this.rows.keys()) this.#touched(id);
    this.rows.clear();
    this.reindex();
  }

  #index(rec: SRecord, delta: 1 | -1): void {
    for (const f of this.meta.indexed) {
      const key = indexKey(f, rec[f.name] ?? null);
      if (key === null) continue;
      const ix = this.#indexes.get(f.name);
      if (ix === undefined) continue;
      let set = ix.get(key);
      if (delta === 1) {
        if (set === undefined) {
          set = new Set();
          ix.set(key, set);
        }
        set.add(rec.Id as string);
      } else if (set !== undefined) {
        set.delete(rec.Id as string);
        if (set.size === 0) ix.delete(key);
      }
    }
  }
}
