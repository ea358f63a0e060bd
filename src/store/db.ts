// Kysely on embedded SQLite (a file in the data dir) or PostgreSQL (DATABASE_URL); what differs
// between them lives here and in changes.ts.
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CamelCasePlugin,
  type DatabaseIntrospector,
  Kysely,
  PostgresDialect,
  PostgresIntrospector,
  SqliteDialect,
  sql,
  type TableMetadata,
} from 'kysely';
import type { Clock } from '../lib/clock.ts';
import { ensurePrivateDir, withPrivateUmask } from '../lib/private-dir.ts';
import { retrying } from '../lib/retry.ts';
import type { Database } from './schema.ts';

export const SQLITE_FILE = 'crm-proxy.sqlite';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,40}$/;

export interface DbOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL only: every table in this schema (created if missing); isolates test runs. */
  pgSchema?: string | undefined;
  /** Lock waits and busy retries run on this clock (default: the system's). */
  clock?: Clock | undefined;
  /** A second change feed (Redis) read with the store's own, so that another instance sees a revocation on its next request. */
  relay?: ChangeRelay | undefined;
}

export interface ChangeRelay {
  announce(): Promise<void>;
  version(): Promise<string>;
}

export type DbHandle =
  | { dialect: 'sqlite'; db: Kysely<Database>; sqlite: BetterSqlite3.Database }
  | { dialect: 'postgres'; db: Kysely<Database>; databaseUrl: string; pgSchema: string | undefined };

// camelCase in TypeScript, snake_case in SQL.
const plugins = [new CamelCasePlugin()];

export async function openDb(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.pgSchema);
  // Owner-only: the file holds sealed credentials and token hashes (its -wal/-shm files too).
  ensurePrivateDir(opts.dataDir);
  const sqlite = withPrivateUmask(() => {
    const db = new BetterSqlite3(join(opts.dataDir, SQLITE_FILE));
    // WAL lets the CLI write while the service reads; concurrent writers wait instead of failing.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    return db;
  });
  ensurePrivateDir(opts.dataDir);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return {
    dialect: 'sqlite',
    db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), plugins }),
    sqlite,
  };
}

async function openPostgres(databaseUrl: string, pgSchema: string | undefined): Promise<DbHandle> {
  // Loaded on demand: most deployments (and every CLI call on SQLite) never need the driver.
  const { default: pg } = await import('pg');
  if (pgSchema !== undefined && !SCHEMA_NAME.test(pgSchema))
    throw new Error('pgSchema must be a lower-case SQL identifier');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    ...(pgSchema ? { options: `-c search_path="${pgSchema}"` } : {}),
  });
  // An idle client that loses its server would otherwise raise an unhandled 'error' event.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new StoreSchemaDialect({ pool }), plugins });
  if (pgSchema !== undefined) {
    // Two first opens at once race inside "if not exists" (unique violation); the schema exists either way.
    await sql`create schema if not exists ${sql.id(pgSchema)}`.execute(db).catch(async (err: unknown) => {
      if (codeOf(err) === '23505' || codeOf(err) === '42P06') return;
      await db.destroy();
      throw err;
    });
  }
  return { dialect: 'postgres', db, databaseUrl, pgSchema };
}

/** Lists only the store's own schema: Kysely's scan of all fails (3F000) when one is dropped meanwhile. */
class StoreSchemaIntrospector extends PostgresIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    super(db);
    this.#db = db;
  }

  override async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.#db);
    return rows.map((r) => ({
      name: r.name,
      schema: r.schema,
      isView: r.kind === 'v' || r.kind === 'm',
      columns: [],
    }));
  }
}

class StoreSchemaDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new StoreSchemaIntrospector(db);
  }
}

// Runs the migrations alone and atomically: on SQLite (unlike PostgreSQL) Kysely needs an IMMEDIATE
// transaction around them, its lock polled since SQLite's own wait would block the event loop.
export async function withMigrationLock<T>(handle: DbHandle, clock: Clock, fn: () => Promise<T>): Promise<T> {
  if (handle.dialect !== 'sqlite') return fn();
  const { sqlite } = handle;
  const deadline = clock.now() + 60_000;
  sqlite.pragma('busy_timeout = 0');
  try {
    const failed = await retrying(clock, {
      attempt: async () => {
        try {
          sqlite.exec('BEGIN IMMEDIATE');
          return undefined;
        } catch (error) {
          return { error };
        }
      },
      next: (failure) =>
        failure === undefined ? undefined : busyRetryWait(failure.error, clock.now(), deadline),
    });
    if (failed !== undefined) throw failed.error;
  } finally {
    sqlite.pragma('busy_timeout = 5000');
  }
  try {
    const result = await fn();
    sqlite.exec('COMMIT');
    return result;
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

const codeOf = (error: unknown) => (error as { code?: string } | null)?.code;

/** SQLite is busy (another process holds the write lock): try again in 20 ms until the deadline. */
export function busyRetryWait(error: unknown, now: number, deadline: number): number | undefined {
  return codeOf(error) === 'SQLITE_BUSY' && now <= deadline ? 20 : undefined;
}
