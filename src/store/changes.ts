// Change feed for auth caches. SQLite: `PRAGMA data_version` moves when another connection commits
// (no I/O). PostgreSQL: writers NOTIFY, every instance LISTENs; while that connection is down each
// version is fresh, so caches are bypassed rather than trusted.
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.ts';

/** Tells caches that tokens or connections may have changed, here or in another process. */
export interface ChangeHub {
  /** Cheap; a new value means cached auth state must be dropped. */
  version(): Promise<string>;
  /** Called after a write that can invalidate cached auth state. */
  publish(): Promise<void>;
  close(): Promise<void>;
}

export function sqliteChanges(sqlite: BetterSqlite3.Database): ChangeHub {
  let local = 0;
  // Read at most once per event-loop turn: every authenticated request asks, and a commit within
  // the turn is indistinguishable from one just after. Own writes move `local` at once.
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

  const close = async () => {
    closed = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = undefined;
    healthy = false;
    await c?.end().catch(() => {});
  };
  try {
    await connect();
  } catch (err) {
    // No background reconnection for a store that failed to open.
    await close();
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
    close,
  };
}
