import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { deserialize, serialize } from 'node:v8';
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

/** Writes are gathered for this long before the file is rewritten. */
const SAVE_DELAY_MS = 250;

/**
 * Keeps `parts` in `file`: read at start, written shortly after each call that may change state
 * (any method but GET and HEAD) and when the sandbox closes. The file is the V8 serialisation of
 * `{name: part.exportState()}`, so every Map and Set inside a part is kept without a per-field
 * format. Writes go to a temporary file renamed over the old one: a crash mid-write leaves the
 * previous state whole.
 */
export function persistState(app: FastifyInstance, file: string, parts: Record<string, Persistable>): void {
  if (existsSync(file)) {
    const saved = deserialize(readFileSync(file)) as Record<string, unknown>;
    for (const [name, part] of Object.entries(parts)) {
      if (saved[name] !== undefined) part.importState(saved[name]);
    }
  }
  let timer: NodeJS.Timeout | null = null;
  const save = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const state: Record<string, unknown> = {};
    for (const [name, part] of Object.entries(parts)) state[name] = part.exportState();
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, serialize(state), { mode: 0o600 });
    renameSync(tmp, file);
  };
  app.addHook('onResponse', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (timer === null) {
      timer = setTimeout(save, SAVE_DELAY_MS);
      timer.unref();
    }
  });
  app.addHook('onClose', async () => save());
}

/**
 * `exportState`/`importState` for an object whose state is a set of stores: every own property
 * whose value is itself `Persistable` is kept under its property name, so a store added later is
 * kept without touching this code (and a test can check that none is left out).
 */
export function storesOf(owner: object): Persistable {
  const stores = () => Object.entries(owner).filter((e): e is [string, Persistable] => isPersistable(e[1]));
  return {
    exportState: () => Object.fromEntries(stores().map(([name, store]) => [name, store.exportState()])),
    importState: (state) => {
      const saved = state as Record<string, unknown>;
      for (const [name, store] of stores()) if (saved[name] !== undefined) store.importState(saved[name]);
    },
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

/** `saved`, plus the entries of `current` it lacks (a new start's bootstrap tokens beside kept ones). */
export function keepMissing<K, V>(saved: Map<K, V>, current: Map<K, V>): Map<K, V> {
  for (const [key, value] of current) if (!saved.has(key)) saved.set(key, value);
  return saved;
}
