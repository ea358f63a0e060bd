import { ChangeSet, type JournalChanges } from '../../shared/persist.ts';
import { type QueryOptions, type QueryRun, query as runQuery } from '../query/execute.ts';
import { AUTHORED, CHILD_RELATIONSHIP_NAMES, describeObject } from '../seed/objects.ts';
import { seedRecords } from '../seed/records.ts';
import { SETUP_OBJECTS } from '../seed/setup-objects.ts';
import { seedSetupRecords } from '../seed/setup-records.ts';
import { addCustomField, linkParents } from './custom.ts';
import { describeFor, globalEntry } from './describe.ts';
import { readSchemaFile, recordedDescribes } from './describe-files.ts';
import {
  type DmlHost,
  deleteRecords,
  findByExternalId,
  type InputRecord,
  insertRecords,
  OrgError,
  undeleteRecords,
  updateRecords,
  upsertRecords,
  type Validator,
} from './dml.ts';
import type { FieldSpec } from './fields.ts';
import { fixedId, IdFactory, keyPrefixOf, normalizeId } from './ids.ts';
import { type ObjectMeta, Schema } from './meta.ts';
import { Table } from './store.ts';
import type { DmlOptions, FieldDescribe, SaveResult, SObjectDescribe, SRecord } from './types.ts';
import { formatDateTime } from './values.ts';

export { OrgError, type Validator } from './dml.ts';
export type { FieldSpec } from './fields.ts';
export { isId, normalizeId, toId18 } from './ids.ts';
export type { ObjectMeta } from './meta.ts';
export type * from './types.ts';
export { formatDateTime } from './values.ts';

/** Longest recently-viewed list kept per user (the `recent` resource answers at most 200). */
const MAX_RECENT = 200;

/** `exportState()`: what `--persist` writes to the data directory. */
export interface OrgState {
  version: 1;
  describes: SObjectDescribe[];
  records: Record<string, SRecord[]>;
  ids: Array<[string, number]>;
  viewed: Array<[string, string[]]>;
  adminUserId: string;
  standardUserId: string;
}

export interface OrgSnapshot {
  tables: Map<ObjectMeta, SRecord[]>;
  ids: Map<string, number>;
  viewed: Map<string, string[]>;
}

export interface OrgOptions {
  /** A JSON file of describe answers from a real org; adds or replaces objects. */
  schemaFile?: string;
  /** Seed the standard data set (default true). */
  seed?: boolean;
  /** State and Country/Territory Picklists on Account's addresses (default true). */
  addressPicklists?: boolean;
}

/**
 * The emulated org: metadata, records (recycle bin included) and the operations every API of the
 * sandbox runs on (REST, collections, Bulk, Tooling). Everything is in memory and synchronous.
 */
export class Org implements DmlHost {
  readonly orgId = fixedId('00D', '0ABCDE');
  schema = new Schema();
  readonly ids = new IdFactory();
  #tables = new Map<ObjectMeta, Table>();
  readonly #options: OrgOptions;
  #extraSchema: SObjectDescribe[] = [];
  #validators = new Map<string, Validator[]>();
  adminUserId = '';
  standardUserId = '';
  /** Recently viewed records per user, most recent first (`recent`, `FOR VIEW`). */
  #viewed = new Map<string, string[]>();
  /** Records stored or removed since the last save (`sandbox/shared/persist.ts`). */
  readonly #changes = new ChangeSet();

  constructor(options: OrgOptions = {}) {
    this.#options = options;
    if (options.schemaFile !== undefined) this.#extraSchema = readSchemaFile(options.schemaFile);
    this.reset();
  }

  get defaultUserId(): string {
    return this.adminUserId;
  }

  /** Back to the seeded metadata and records. */
  reset(): void {
    this.#changes.markAll();
    this.schema = new Schema(new Date('2024-01-01T00:00:00Z'));
    this.#tables.clear();
    this.#viewed.clear();
    this.ids.reset();
    const picklists = this.#options.addressPicklists !== false;
    for (const d of recordedDescribes({ addressPicklists: picklists })) this.schema.put(d);
    for (const d of [...AUTHORED, ...SETUP_OBJECTS]) this.schema.put(structuredClone(d));
    for (const d of this.#extraSchema) this.schema.put(structuredClone(d));
    for (const meta of this.schema.all()) {
      for (const f of meta.fields) if (meta.describe.custom || f.custom) linkParents(this.schema, meta, f);
    }
    for (const d of [...AUTHORED, ...SETUP_OBJECTS]) {
      const meta = this.schema.get(d.name);
      if (meta !== undefined) for (const f of meta.fields) linkParents(this.schema, meta, f);
    }
    for (const meta of this.schema.all()) {
      for (const rel of meta.describe.childRelationships) {
        const name = CHILD_RELATIONSHIP_NAMES[`${rel.childSObject}.${rel.field}`];
        if (name !== undefined) rel.relationshipName = name === '' ? null : name;
      }
    }
    if (this.#options.seed !== false) {
      const seeded = seedRecords(this);
      this.adminUserId = seeded.adminUserId;
      this.standardUserId = seeded.standardUserId;
      seedSetupRecords(this);
    }
  }

  // --- metadata -------------------------------------------------------------------------------

  object(name: string): ObjectMeta | undefined {
    return this.schema.get(name);
  }

  objectByPrefix(prefix: string): ObjectMeta | undefined {
    return this.schema.byPrefix(prefix);
  }

  describe(name: string, version: string, baseUrl = ''): SObjectDescribe | undefined {
    const meta = this.schema.get(name);
    return meta === undefined ? undefined : describeFor(meta, version, baseUrl);
  }

  describeGlobal(version: string): {
    encoding: string;
    maxBatchSize: number;
    sobjects: Record<string, unknown>[];
  } {
    return {
      encoding: 'UTF-8',
      maxBatchSize: 200,
      sobjects: this.schema.all().map((m) => globalEntry(m, version)),
    };
  }

  addCustomField(objectName: string, spec: FieldSpec): FieldDescribe {
    const field = addCustomField(this.schema, objectName, spec);
    const meta = this.schema.get(objectName);
    if (meta !== undefined) this.table(meta).reindex();
    return field;
  }

  /** A custom object added at run time: `Name`, owner and audit fields included, with a fresh key prefix. */
  addCustomObject(spec: {
    name: string;
    label?: string;
    labelPlural?: string;
    fields?: FieldSpec[];
    /** The Name field: its label, and a display format when it is an auto-number (`INV-{0000}`). */
    nameField?: { label?: string; displayFormat?: string };
  }): ObjectMeta {
    const name = spec.name.endsWith('__c') ? spec.name : `${spec.name}__c`;
    if (this.schema.get(name) !== undefined) {
      throw new OrgError('DUPLICATE_DEVELOPER_NAME', `There is already an object named ${name}.`);
    }
    let n = 0xc0;
    let keyPrefix = '';
    do keyPrefix = `a${(n++).toString(36).toUpperCase().padStart(2, '0')}`;
    while (this.schema.byPrefix(keyPrefix) !== undefined);
    const label = spec.label ?? name.replace(/__c$/, '').replace(/_/g, ' ');
    const describe = describeObject({
      name,
      label,
      labelPlural: spec.labelPlural ?? `${label}s`,
      keyPrefix,
      custom: true,
      fields: [
        {
          name: 'OwnerId',
          type: 'reference',
          referenceTo: ['User'],
          relationshipName: 'Owner',
          nillable: false,
          defaultedOnCreate: true,
        },
        spec.nameField?.displayFormat !== undefined
          ? {
              name: 'Name',
              type: 'string',
              label: spec.nameField.label ?? `${label} Name`,
              length: 30,
              nillable: false,
              custom: false,
              autoNumber: true,
              createable: false,
              updateable: false,
              // Not a describe key: the auto-number's format, read when a record is inserted.
              ...({ displayFormat: spec.nameField.displayFormat } as Partial<FieldSpec>),
            }
          : {
              name: 'Name',
              type: 'string',
              label: spec.nameField?.label ?? `${label} Name`,
              length: 80,
              nillable: false,
              custom: false,
            },
      ],
    });
    const meta = this.schema.put(describe);
    for (const f of spec.fields ?? []) addCustomField(this.schema, name, f);
    this.schema.touch();
    return meta;
  }

  /** Adds a rule for writes of one object (kept across `reset()`). */
  addValidator(objectName: string, validator: Validator): void {
    const key = objectName.toLowerCase();
    this.#validators.set(key, [...(this.#validators.get(key) ?? []), validator]);
  }

  validators(meta: ObjectMeta): readonly Validator[] {
    return this.#validators.get(meta.name.toLowerCase()) ?? [];
  }

  // --- records --------------------------------------------------------------------------------

  table(meta: ObjectMeta): Table {
    let t = this.#tables.get(meta);
    if (t === undefined) {
      t = new Table(meta, (id) => this.#changes.mark(id));
      this.#tables.set(meta, t);
    }
    return t;
  }

  newId(meta: ObjectMeta): string {
    return this.ids.next(meta.keyPrefix);
  }

  lookup(id: string): { table: Table; rec: SRecord } | undefined {
    const meta = this.schema.byPrefix(keyPrefixOf(id));
    if (meta === undefined) return undefined;
    const table = this.table(meta);
    const rec = table.get(id);
    return rec === undefined ? undefined : { table, rec };
  }

  /** A live or deleted record by id (15 or 18 characters). */
  get(id: string): { object: string; record: SRecord } | undefined {
    const norm = normalizeId(id);
    const found = norm === null ? undefined : this.lookup(norm);
    return found === undefined ? undefined : { object: found.table.meta.name, record: found.rec };
  }

  insert(objectName: string | null, records: InputRecord[], opts: DmlOptions = {}): SaveResult[] {
    return insertRecords(this, objectName, records, opts);
  }

  update(objectName: string | null, records: InputRecord[], opts: DmlOptions = {}): SaveResult[] {
    return updateRecords(this, objectName, records, opts);
  }

  upsert(
    objectName: string,
    externalIdField: string,
    records: InputRecord[],
    opts: DmlOptions = {},
  ): SaveResult[] {
    return upsertRecords(this, objectName, externalIdField, records, opts);
  }

  delete(ids: unknown[], opts: DmlOptions = {}): SaveResult[] {
    return deleteRecords(this, ids, opts);
  }

  undelete(ids: string[], opts: DmlOptions = {}): SaveResult[] {
    return undeleteRecords(this, ids, opts);
  }

  findByExternalId(objectName: string, field: string, value: unknown): string[] {
    const meta = this.schema.get(objectName);
    if (meta === undefined) throw new OrgError('NOT_FOUND', 'The requested resource does not exist', 404);
    return findByExternalId(this, meta, field, value);
  }

  /** Stores a record as given (seed data): defaults and audit fields filled, no validation. */
  load(objectName: string, values: SRecord, when: Date, userId?: string): string {
    const meta = this.schema.get(objectName);
    if (meta === undefined) throw new Error(`unknown object ${objectName}`);
    const id = this.newId(meta);
    const rec: SRecord = { Id: id, IsDeleted: false };
    for (const f of meta.defaulted) {
      if (f.type === 'boolean') rec[f.name] = f.defaultValue === true;
      else {
        const d = f.picklistValues.find((p) => p.defaultValue);
        if (d !== undefined) rec[f.name] = d.value;
      }
    }
    Object.assign(rec, values);
    const by = userId ?? (this.adminUserId || id);
    const stamp = formatDateTime(when);
    if (meta.field('OwnerId') !== undefined && rec.OwnerId === undefined) rec.OwnerId = by;
    if (meta.field('Name') !== undefined && !meta.field('Name')?.createable && meta.field('LastName')) {
      rec.Name = [rec.FirstName, rec.LastName].filter((p) => typeof p === 'string' && p !== '').join(' ');
    }
    Object.assign(rec, {
      CreatedDate: stamp,
      CreatedById: by,
      LastModifiedDate: stamp,
      LastModifiedById: by,
      SystemModstamp: stamp,
    });
    this.table(meta).put(rec);
    return id;
  }

  /** Records the user viewed or referenced (`FOR VIEW`, a record read): they lead the `recent` list. */
  markViewed(userId: string, ids: string[]): void {
    const fresh = [...new Set(ids.map((i) => normalizeId(i)).filter((i): i is string => i !== null))];
    const list = (this.#viewed.get(userId) ?? []).filter((id) => !fresh.includes(id));
    this.#viewed.set(userId, [...fresh, ...list].slice(0, MAX_RECENT));
  }

  /** Live records the user viewed, most recent first (deleted ones drop out, as in Salesforce). */
  recentlyViewed(userId: string, objectName?: string): Array<{ object: string; record: SRecord }> {
    const out: Array<{ object: string; record: SRecord }> = [];
    for (const id of this.#viewed.get(userId) ?? []) {
      const found = this.get(id);
      if (found === undefined || found.record.IsDeleted === true) continue;
      if (objectName !== undefined && found.object.toLowerCase() !== objectName.toLowerCase()) continue;
      out.push(found);
    }
    return out;
  }

  /** The records and id counters as they are now, for `restore` (a composite request's rollback). */
  snapshot(): OrgSnapshot {
    const tables = new Map<ObjectMeta, SRecord[]>();
    for (const [meta, t] of this.#tables)
      tables.set(
        meta,
        [...t.rows.values()].map((r) => ({ ...r })),
      );
    return { tables, ids: this.ids.snapshot(), viewed: new Map(this.#viewed) };
  }

  /** The whole org as JSON-ready data: every object's describe, every record (recycle bin too), id counters. */
  exportState(withRecords = true): OrgState {
    const records: Record<string, SRecord[]> = {};
    if (withRecords)
      for (const [meta, t] of this.#tables) if (t.rows.size > 0) records[meta.name] = [...t.rows.values()];
    return {
      version: 1,
      describes: this.schema.all().map((m) => m.describe),
      records,
      ids: [...this.ids.snapshot()],
      viewed: [...this.#viewed],
      adminUserId: this.adminUserId,
      standardUserId: this.standardUserId,
    };
  }

  /** Replaces metadata and records with an exported state (a restarted sandbox with `persistDir`). */
  importState(state: OrgState): void {
    if (state.version !== 1) throw new Error(`unsupported sandbox state version ${String(state.version)}`);
    this.schema = new Schema(this.schema.lastModified);
    this.#tables.clear();
    for (const d of state.describes) this.schema.put(d);
    for (const [name, rows] of Object.entries(state.records)) {
      const meta = this.schema.get(name);
      if (meta === undefined) continue;
      const table = this.table(meta);
      for (const r of rows) table.put(r);
    }
    this.ids.restore(new Map(state.ids));
    this.#viewed = new Map(state.viewed);
    this.adminUserId = state.adminUserId;
    this.standardUserId = state.standardUserId;
    this.#changes.markAll();
  }

  /** What the journal keeps whole on each save: everything but the records, which it keeps one by one. */
  journalHead(): Omit<OrgState, 'records'> {
    const { records: _records, ...head } = this.exportState(false);
    return head;
  }

  journalChanges(): JournalChanges {
    return this.#changes.take(
      (id) => {
        const found = this.#find(id);
        return found === undefined ? undefined : [found.table.meta.name, found.rec];
      },
      () =>
        [...this.#tables.values()].flatMap((t) =>
          [...t.rows].map(([id, rec]): [string, unknown] => [id, [t.meta.name, rec]]),
        ),
    );
  }

  journalLoad(head: unknown, entries: Array<[string, unknown]>): void {
    const records: Record<string, SRecord[]> = {};
    for (const [, value] of entries) {
      const [name, rec] = value as [string, SRecord];
      const rows = records[name] ?? [];
      rows.push(rec);
      records[name] = rows;
    }
    this.importState({ ...(head as Omit<OrgState, 'records'>), records });
    this.#changes.clear();
  }

  /** A record by id in any table (one of an object whose describe was replaced too). */
  #find(id: string): { table: Table; rec: SRecord } | undefined {
    const found = this.lookup(id);
    if (found !== undefined && found.table.rows.get(id) === found.rec) return found;
    for (const table of this.#tables.values()) {
      const rec = table.rows.get(id);
      if (rec !== undefined) return { table, rec };
    }
    return undefined;
  }

  /** Back to a snapshot: every write since is undone. Metadata changes are kept. */
  restore(snap: OrgSnapshot): void {
    for (const [meta, t] of this.#tables) {
      const before = new Map((snap.tables.get(meta) ?? []).map((r) => [r.Id as string, r]));
      for (const [id, rec] of t.rows) if (!sameRecord(rec, before.get(id))) this.#changes.mark(id);
      for (const id of before.keys()) if (!t.rows.has(id)) this.#changes.mark(id);
      t.rows.clear();
      for (const r of snap.tables.get(meta) ?? []) t.rows.set(r.Id as string, r);
      t.reindex();
    }
    this.ids.restore(snap.ids);
    this.#viewed = new Map(snap.viewed);
  }

  // --- SOQL -----------------------------------------------------------------------------------

  query(soql: string, options: QueryOptions = {}): QueryRun {
    return runQuery(this, soql, options);
  }
}

/** Two versions of a record with the same fields and values (a rollback leaves most records as they were). */
function sameRecord(a: SRecord, b: SRecord | undefined): boolean {
  if (b === undefined) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}
