import { ChangeSet, type JournalChanges } from '../../shared/persist.ts';
import type { WriteListener } from './audit-log.ts';
import type { ObjectTypeDefinition, StoredRecord } from './types.ts';

export interface WriteOptions {
  /** Timestamp of the write (defaults to now); seeding passes fixed times so the seed is deterministic. */
  at?: string;
  /** `sourceType` written to property history. */
  sourceType?: string;
}

/**
 * Records of every object type. Ids are decimal strings from one counter (HubSpot ids are unique
 * per type; one counter keeps them unique everywhere, which HubSpot also does in practice). Values are
 * stored already normalised to HubSpot's string forms; validation happens before (see `values.ts`).
 */
export class RecordStore {
  #byType = new Map<string, Map<string, StoredRecord>>();
  /** Lazily built value indexes (`typeId\0property` → lower-cased value → ids) behind `findBy`. */
  #indexes = new Map<string, Map<string, Set<string>>>();
  #nextId: number;
  #now: () => string;
  /** Records written since the last save (`sandbox/shared/persist.ts`). */
  readonly #changes = new ChangeSet();
  /** Told of each create, update and archive once the portal is seeded (its audit log). */
  onWrite: WriteListener | undefined;

  constructor(firstId: number, now: () => string) {
    this.#nextId = firstId;
    this.#now = now;
  }

  #table(objectTypeId: string): Map<string, StoredRecord> {
    let t = this.#byType.get(objectTypeId);
    if (t === undefined) {
      t = new Map();
      this.#byType.set(objectTypeId, t);
    }
    return t;
  }

  create(
    type: ObjectTypeDefinition,
    values: Record<string, string>,
    options: WriteOptions = {},
  ): StoredRecord {
    const at = options.at ?? this.#now();
    const id = String(this.#nextId);
    this.#nextId += 1;
    const record: StoredRecord = {
      id,
      objectTypeId: type.objectTypeId,
      properties: {},
      history: {},
      createdAt: at,
      updatedAt: at,
      archived: false,
    };
    const system = {
      hs_object_id: id,
      [type.createdateProperty]: at,
      [type.lastModifiedProperty]: at,
    };
    this.#apply(record, { ...values, ...system }, at, options.sourceType ?? 'API');
    this.#table(type.objectTypeId).set(id, record);
    this.#changes.mark(id);
    this.onWrite?.({ action: 'CREATE', objectTypeId: type.objectTypeId, targetObjectId: id });
    return record;
  }

  /** A record by id; archived records only when `archived: true` (HubSpot's `?archived=true`). */
  get(objectTypeId: string, id: string, options: { archived?: boolean } = {}): StoredRecord | undefined {
    const r = this.#table(objectTypeId).get(id);
    return r === undefined || r.archived !== (options.archived ?? false) ? undefined : r;
  }

  /**
   * The record whose `property` equals `value` (for `idProperty` look-ups and uniqueness checks).
   * `caseInsensitive` is for emails, which HubSpot matches regardless of case.
   */
  findBy(
    objectTypeId: string,
    property: string,
    value: string,
    options: { archived?: boolean; caseInsensitive?: boolean } = {},
  ): StoredRecord | undefined {
    if (value === '') return undefined;
    const ids = this.#index(objectTypeId, property).get(value.toLowerCase());
    if (ids === undefined) return undefined;
    const table = this.#table(objectTypeId);
    for (const id of ids) {
      const r = table.get(id);
      if (r === undefined || r.archived !== (options.archived ?? false)) continue;
      if (options.caseInsensitive || r.properties[property] === value) return r;
    }
    return undefined;
  }

  /**
   * Live records whose `property` equals `value` ignoring case (index-backed; callers re-check their
   * own comparison). Lets search answer equality filters without scanning every record.
   */
  matching(objectTypeId: string, property: string, value: string): StoredRecord[] {
    const ids = this.#index(objectTypeId, property).get(value.toLowerCase());
    if (ids === undefined) return [];
    const table = this.#table(objectTypeId);
    const out: StoredRecord[] = [];
    for (const id of ids) {
      const r = table.get(id);
      if (r !== undefined && !r.archived) out.push(r);
    }
    return out;
  }

  #index(objectTypeId: string, property: string): Map<string, Set<string>> {
    const key = `${objectTypeId}\u0000${property}`;
    let index = this.#indexes.get(key);
    if (index === undefined) {
      index = new Map();
      for (const r of this.#table(objectTypeId).values()) {
        const v = r.properties[property];
        if (v !== undefined && v !== '') addTo(index, v.toLowerCase(), r.id);
      }
      this.#indexes.set(key, index);
    }
    return index;
  }

  /** Sets values on a live record; `undefined` when it does not exist or is archived. */
  update(
    type: ObjectTypeDefinition,
    id: string,
    values: Record<string, string>,
    options: WriteOptions = {},
  ): StoredRecord | undefined {
    const record = this.get(type.objectTypeId, id);
    if (record === undefined) return undefined;
    const at = options.at ?? this.#now();
    this.#apply(record, { ...values, [type.lastModifiedProperty]: at }, at, options.sourceType ?? 'API');
    record.updatedAt = at;
    this.#changes.mark(id);
    this.onWrite?.({ action: 'UPDATE', objectTypeId: type.objectTypeId, targetObjectId: id });
    return record;
  }

  /** Archives (HubSpot's DELETE moves a record to the recycle bin); false when not live. */
  archive(objectTypeId: string, id: string): boolean {
    const record = this.get(objectTypeId, id);
    if (record === undefined) return false;
    record.archived = true;
    record.archivedAt = this.#now();
    this.#changes.mark(id);
    this.onWrite?.({ action: 'DELETE', objectTypeId, targetObjectId: id });
    return true;
  }

  /** Deletes a record for good (GDPR delete): gone from reads, archived ones included; false when unknown. */
  purge(objectTypeId: string, id: string): boolean {
    if (!this.#table(objectTypeId).delete(id)) return false;
    this.#changes.mark(id);
    for (const [key, index] of this.#indexes) {
      if (key.startsWith(`${objectTypeId}\u0000`)) for (const ids of index.values()) ids.delete(id);
    }
    this.onWrite?.({ action: 'DELETE', objectTypeId, targetObjectId: id });
    return true;
  }

  /** Records of a type in id order (creation order), live ones unless `archived: true`. */
  list(objectTypeId: string, options: { archived?: boolean } = {}): StoredRecord[] {
    const want = options.archived ?? false;
    return [...this.#table(objectTypeId).values()].filter((r) => r.archived === want);
  }

  /** Forgets every record of a type (its schema was deleted). */
  drop(objectTypeId: string): void {
    for (const id of this.#byType.get(objectTypeId)?.keys() ?? []) this.#changes.mark(id);
    this.#byType.delete(objectTypeId);
    for (const key of this.#indexes.keys())
      if (key.startsWith(`${objectTypeId}\u0000`)) this.#indexes.delete(key);
  }

  #apply(record: StoredRecord, values: Record<string, string>, at: string, sourceType: string): void {
    for (const [name, value] of Object.entries(values)) {
      const index = this.#indexes.get(`${record.objectTypeId}\u0000${name}`);
      if (index !== undefined) {
        const old = record.properties[name];
        if (old !== undefined && old !== '') index.get(old.toLowerCase())?.delete(record.id);
        if (value !== '') addTo(index, value.toLowerCase(), record.id);
      }
      record.properties[name] = value;
      const entry = { value, timestamp: at, sourceType };
      record.history[name] = [entry, ...(record.history[name] ?? [])];
    }
  }

  /** Every field of the store, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { byType: this.#byType, indexes: this.#indexes, nextId: this.#nextId };
  }

  importState(state: unknown): void {
    const saved = state as ReturnType<RecordStore['exportState']>;
    this.#byType = saved.byType;
    this.#indexes = saved.indexes;
    this.#nextId = saved.nextId;
    this.#changes.markAll();
  }

  /** Kept whole on each save; the records are kept one by one (ids are unique across types). */
  journalHead() {
    return { nextId: this.#nextId };
  }

  journalChanges(): JournalChanges {
    return this.#changes.take(
      (id) => this.#find(id),
      () => [...this.#byType.values()].flatMap((t) => [...t]),
    );
  }

  journalLoad(head: unknown, entries: Array<[string, unknown]>): void {
    this.#byType = new Map();
    this.#indexes = new Map();
    for (const [id, value] of entries) {
      const record = value as StoredRecord;
      this.#table(record.objectTypeId).set(id, record);
    }
    this.#nextId = (head as ReturnType<RecordStore['journalHead']>).nextId;
    this.#changes.clear();
  }

  #find(id: string): StoredRecord | undefined {
    for (const table of this.#byType.values()) {
      const found = table.get(id);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

function addTo(index: Map<string, Set<string>>, key: string, id: string): void {
  let ids = index.get(key);
  if (ids === undefined) {
    ids = new Set();
    index.set(key, ids);
  }
  ids.add(id);
}
