import type { ChildRelationship, FieldDescribe, SObjectDescribe } from './types.ts';

/** One sObject's metadata with case-insensitive lookups built once (the DML path uses them per value). */
export class ObjectMeta {
  readonly name: string;
  readonly keyPrefix: string;
  readonly describe: SObjectDescribe;
  #byLower = new Map<string, FieldDescribe>();
  #relByLower = new Map<string, FieldDescribe>();
  /** Fields whose values are indexed: external ids and unique fields. */
  indexed: FieldDescribe[] = [];
  /** createable, not nillable, not defaulted: must be given on insert. */
  required: FieldDescribe[] = [];
  /** Fields filled on insert when absent (picklist defaults, checkbox defaults). */
  defaulted: FieldDescribe[] = [];

  constructor(describe: SObjectDescribe) {
    this.describe = describe;
    this.name = describe.name;
    this.keyPrefix = describe.keyPrefix ?? '';
    this.#reindex();
  }

  get fields(): readonly FieldDescribe[] {
    return this.describe.fields;
  }

  field(name: string): FieldDescribe | undefined {
    return this.#byLower.get(name.toLowerCase());
  }

  /** The reference field behind a relationship name (`Account` → `AccountId`, `Owner` → `OwnerId`). */
  relationship(name: string): FieldDescribe | undefined {
    return this.#relByLower.get(name.toLowerCase());
  }

  addField(field: FieldDescribe): void {
    this.describe.fields.push(field);
    this.#reindex();
  }

  addChildRelationship(rel: ChildRelationship): void {
    if (
      this.describe.childRelationships.some(
        (r) => r.childSObject === rel.childSObject && r.field === rel.field,
      )
    )
      return;
    this.describe.childRelationships.push(rel);
  }

  #reindex(): void {
    this.#byLower.clear();
    this.#relByLower.clear();
    this.indexed = [];
    this.required = [];
    this.defaulted = [];
    for (const f of this.describe.fields) {
      this.#byLower.set(f.name.toLowerCase(), f);
      if (f.type === 'reference' && f.relationshipName)
        this.#relByLower.set(f.relationshipName.toLowerCase(), f);
      if ((f.externalId || f.unique) && f.type !== 'id') this.indexed.push(f);
      if (f.createable && !f.nillable && !f.defaultedOnCreate && f.type !== 'boolean') this.required.push(f);
      if (f.createable && (f.type === 'boolean' || f.picklistValues.some((p) => p.defaultValue)))
        this.defaulted.push(f);
    }
  }
}

/** Every object of the org, by case-insensitive name and by key prefix. */
export class Schema {
  #byLower = new Map<string, ObjectMeta>();
  #byPrefix = new Map<string, ObjectMeta>();
  /** When metadata last changed (describe `If-Modified-Since`). Second precision, as HTTP dates. */
  lastModified: Date;

  constructor(lastModified = new Date()) {
    this.lastModified = new Date(Math.floor(lastModified.getTime() / 1000) * 1000);
  }

  get(name: string): ObjectMeta | undefined {
    return this.#byLower.get(name.toLowerCase());
  }

  byPrefix(prefix: string): ObjectMeta | undefined {
    return this.#byPrefix.get(prefix);
  }

  all(): ObjectMeta[] {
    return [...this.#byLower.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Adds or replaces an object's metadata. */
  put(describe: SObjectDescribe): ObjectMeta {
    const old = this.get(describe.name);
    if (old?.keyPrefix) this.#byPrefix.delete(old.keyPrefix);
    const meta = new ObjectMeta(describe);
    this.#byLower.set(meta.name.toLowerCase(), meta);
    if (meta.keyPrefix) this.#byPrefix.set(meta.keyPrefix, meta);
    return meta;
  }

  touch(): void {
    this.lastModified = new Date(Math.max(Date.now(), this.lastModified.getTime() + 1000));
    this.lastModified = new Date(Math.floor(this.lastModified.getTime() / 1000) * 1000);
  }
}
