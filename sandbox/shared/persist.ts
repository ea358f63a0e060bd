import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';

/** A piece of sandbox state that can be written out and read back (an org, an OAuth state, a portal). */
export interface Persistable {
  /**
   * The state as structured-clone data: Maps, Sets, Dates, Infinity and objects shared between two
   * maps (a grant behind both its refresh and its access tokens) all come back as they were.
   */
  exportState(): unknown;
  importState(state: unknown): void;
}

/** What a journaled store changed since it was last asked. */
export interface JournalChanges {
  /** Every kept entry is to be dropped first (the store was emptied, replaced or imported whole). */
  all: boolean;
  /** Each changed entry with its value now; `undefined` when the entry is gone. */
  entries: Array<[string, unknown]>;
}

/**
 * A store whose bulk (records, links, log entries) is kept entry by entry, so that saving after a
 * write costs what the write changed, not what the store holds. Its small remainder (counters,
 * types) is its head, kept whole.
 */
export interface Journaled extends Persistable {
  journalHead(): unknown;
  /** The entries changed since the last call (all of them after a reset); the next call starts afresh. */
  journalChanges(): JournalChanges;
  /** Rebuilds the store from its head and its entries, in the order they were first kept. */
  journalLoad(head: unknown, entries: Array<[string, unknown]>): void;
}

/** A part made of named stores found when saving (a portal that swaps its stores on reset). */
export interface Sectioned extends Persistable {
  sections(): Record<string, Persistable>;
}

/**
 * The keys a journaled store changed: `mark` on each write, `take` when saving. A new store, a
 * reset or a whole import counts as every entry changed.
 */
export class ChangeSet {
  #all = true;
  #keys = new Set<string>();

  mark(key: string): void {
    if (!this.#all) this.#keys.add(key);
  }

  markAll(): void {
    this.#all = true;
    this.#keys.clear();
  }

  /** After a load from the journal: nothing is changed. */
  clear(): void {
    this.#all = false;
    this.#keys.clear();
  }

  take(current: (key: string) => unknown, everything: () => Iterable<[string, unknown]>): JournalChanges {
    const out: JournalChanges = this.#all
      ? { all: true, entries: [...everything()] }
      : { all: false, entries: [...this.#keys].map((k) => [k, current(k)]) };
    this.clear();
    return out;
  }
}

/** Writes are gathered for this long before they are saved. */
const SAVE_DELAY_MS = 250;

/** The first bytes of an SQLite database; a state file without them is the older whole-state format. */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/**
 * Keeps `parts` in `file`, an SQLite database: read at start, saved shortly after each call that
 * may change state (any method but GET and HEAD) and when the sandbox closes. A journaled store
 * saves only the entries changed since the last save, one row each; every other part (and each
 * journaled store's head) is the V8 serialisation of its `exportState()`, rewritten only when its
 * bytes changed. Each save is one transaction: a crash mid-save leaves the previous state whole.
 * A file in the older format (the whole state serialised at once) is read once and kept beside
 * the database as `<file>.v8`.
 */
export function persistState(app: FastifyInstance, file: string, parts: Record<string, Persistable>): void {
  const journal = openJournal(file, parts);
  let timer: NodeJS.Timeout | null = null;
  const save = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    journal.save();
  };
  app.addHook('onResponse', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (timer === null) {
      timer = setTimeout(save, SAVE_DELAY_MS);
      timer.unref();
    }
  });
  app.addHook('onClose', async () => {
    save();
    journal.close();
  });
}

export interface StateJournal {
  /** Saves what changed since the last save. */
  save(): void;
  close(): void;
}

/** The journal behind `persistState`: loads `parts` from `file` now, saves them on `save()`. */
export function openJournal(file: string, parts: Record<string, Persistable>): StateJournal {
  mkdirSync(dirname(file), { recursive: true });
  const legacy = existsSync(file) && !startsWith(file, SQLITE_HEADER) ? readFileSync(file) : null;
  if (legacy !== null) renameSync(file, `${file}.v8`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS head (part TEXT PRIMARY KEY, value BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS entry (part TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
      PRIMARY KEY (part, key))`);
  const readHead = db.prepare<[string], { value: Buffer }>('SELECT value FROM head WHERE part = ?');
  const readEntries = db.prepare<[string], { key: string; value: Buffer }>(
    'SELECT key, value FROM entry WHERE part = ? ORDER BY rowid',
  );
  const writeHead = db.prepare(
    'INSERT INTO head (part, value) VALUES (?, ?) ON CONFLICT (part) DO UPDATE SET value = excluded.value',
  );
  // An update keeps the row's rowid, so entries load in the order they were first written.
  const writeEntry = db.prepare(
    'INSERT INTO entry (part, key, value) VALUES (?, ?, ?) ON CONFLICT (part, key) DO UPDATE SET value = excluded.value',
  );
  const dropEntry = db.prepare('DELETE FROM entry WHERE part = ? AND key = ?');
  const dropPart = db.prepare('DELETE FROM entry WHERE part = ?');
  const written = new Map<string, Buffer>();

  if (legacy !== null) {
    const saved = deserialize(legacy) as Record<string, unknown>;
    for (const [name, part] of Object.entries(parts))
      if (saved[name] !== undefined) part.importState(saved[name]);
  } else {
    for (const [name, store] of flatten(parts)) {
      const head = readHead.get(name)?.value;
      if (head === undefined) continue;
      written.set(name, head);
      if (isJournaled(store)) {
        const entries = readEntries.all(name).map((r): [string, unknown] => [r.key, deserialize(r.value)]);
        store.journalLoad(deserialize(head), entries);
      } else store.importState(deserialize(head));
    }
  }

  const saveAll = db.transaction(() => {
    for (const [name, store] of flatten(parts)) {
      const head = serialize(isJournaled(store) ? store.journalHead() : store.exportState());
      if (!written.get(name)?.equals(head)) {
        writeHead.run(name, head);
        written.set(name, head);
      }
      if (!isJournaled(store)) continue;
      const changes = store.journalChanges();
      if (changes.all) dropPart.run(name);
      for (const [key, value] of changes.entries) {
        if (value === undefined) dropEntry.run(name, key);
        else writeEntry.run(name, key, serialize(value));
      }
    }
  });
  let open = true;
  return {
    save: () => {
      if (open) saveAll();
    },
    close: () => {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}

/** Every store to keep under its name: a sectioned part's stores as `part.store`. */
function flatten(parts: Record<string, Persistable>): Array<[string, Persistable]> {
  return Object.entries(parts).flatMap(
    ([name, part]): Array<[string, Persistable]> =>
      isSectioned(part)
        ? Object.entries(part.sections()).map(([sub, store]): [string, Persistable] => [
            `${name}.${sub}`,
            store,
          ])
        : [[name, part]],
  );
}

function startsWith(file: string, header: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(header.length);
    const read = readSync(fd, buf, 0, buf.length, 0);
    return read === buf.length && buf.toString('latin1') === header;
  } finally {
    closeSync(fd);
  }
}

/**
 * `exportState`/`importState` for an object whose state is a set of stores: every own property
 * whose value is itself `Persistable` is kept under its property name, so a store added later is
 * kept without touching this code (and a test can check that none is left out). Saved, each store
 * is a section of its own (a journaled one entry by entry).
 */
export function storesOf(owner: object): Sectioned {
  const stores = () => Object.entries(owner).filter((e): e is [string, Persistable] => isPersistable(e[1]));
  return {
    exportState: () => Object.fromEntries(stores().map(([name, store]) => [name, store.exportState()])),
    importState: (state) => {
      const saved = state as Record<string, unknown>;
      for (const [name, store] of stores()) if (saved[name] !== undefined) store.importState(saved[name]);
    },
    sections: () => Object.fromEntries(stores()),
  };
}

export function isPersistable(value: unknown): value is Persistable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Persistable).exportState === 'function' &&
    typeof (value as Persistable).importState === 'function'
  );
}

function isJournaled(value: Persistable): value is Journaled {
  return typeof (value as Journaled).journalChanges === 'function';
}

function isSectioned(value: Persistable): value is Sectioned {
  return typeof (value as Sectioned).sections === 'function';
}

/** `saved`, plus the entries of `current` it lacks (a new start's bootstrap tokens beside kept ones). */
export function keepMissing<K, V>(saved: Map<K, V>, current: Map<K, V>): Map<K, V> {
  for (const [key, value] of current) if (!saved.has(key)) saved.set(key, value);
  return saved;
}
