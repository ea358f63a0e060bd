// Change feed for auth caches: a version string that moves whenever tokens or connections may have
// been changed by this process or by another one sharing the store.
// - SQLite: `PRAGMA data_version` changes when another connection (e.g. the CLI) commits to the file;
//   it is read from the shared WAL index, so it costs no I/O.
// - PostgreSQL: writers send NOTIFY; every instance LISTENs on a dedicated connection. While that
//   connection is down, every call returns a fresh value so caches are bypassed rather than trusted.
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.ts';

/**
 * Tells caches that tokens or connections may have changed elsewhere (another process on the same
 * SQLite file, another instance on the same PostgreSQL database). In-process writes move it too.
 */
export interface ChangeHub {
  /** Cheap; a different value than last time means cached auth state must be dropped. */
  version(): Promise<string>;
  /** Called by repositories after a write that can invalidate cached auth state. */
  publish(): Promise<void>;
  close(): Promise<void>;
}

export function sqliteChanges(sqlite: BetterSqlite3.Database): ChangeHub {
  let local = 0;
  // Prepared once, and read at most once per turn of the event loop: every authenticated request
  // asks, and requests handled in the same turn cannot tell a commit made during it from one made
  // just after it. This process's own writes move `local` at once.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  let readThisTurn: string | undefined;
  const forget = () => {
    readThisTurn = undefined;
  };
  return {
    async version() {
      if (readThisTurn === undefined) {
        readThisTurn = String(dataVersion.get());
        setImmediate(forget);
      }
      return `${local}:${readThisTurn}`;
    },
    async publish() {
      local++;
    },
    async close() {},
  };
}

export async function postgresChanges(
  db: Kysely<Database>,
  databaseUrl: string,
  pgSchema: string | undefined,
): Promise<ChangeHub> {
  const { default: pgDriver } = await import('pg');
  const channel = `crm_proxy_changes${pgSchema ? `_${pgSchema}` : ''}`;
  let counter = 0;
  let healthy = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pgDriver.Client({ connectionString: databaseUrl });
    c.on('notification', () => {
      counter++;
    });
    const lost = () => {
      if (client !== c) return;
      healthy = false;
      client = undefined;
      c.end().catch(() => {});
      schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    client = c;
    await c.connect();
    await c.query(`LISTEN "${channel}"`);
    // Anything may have changed while we were not listening.
    counter++;
    healthy = true;
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => {
        client = undefined;
        schedule();
      });
    }, 1000);
    retry.unref();
  };

  try {
    await connect();
  } catch (err) {
    // No background reconnection for a store that failed to open.
    closed = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
    throw err;
  }
  return {
    async version() {
      return healthy ? `n${counter}` : `down${++counter}`;
    },
    async publish() {
      counter++;
      await sql`select pg_notify(${channel}, '')`.execute(db);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      healthy = false;
      await c?.end().catch(() => {});
    },
  };
}
