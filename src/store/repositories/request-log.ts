import type BetterSqlite3 from 'better-sqlite3';
import { type Insertable, type Kysely, sql } from 'kysely';
import type {
  ConnectionStats,
  ConnectionStatsUpdate,
  RequestLogEntry,
  RequestLogFilter,
  UsageBucket,
} from '../rows.ts';
import type { Database, RequestLogTable } from '../schema.ts';

/** Rows per INSERT: well under SQLite's 32,766 bound variables at 13 columns a row. */
const INSERT_CHUNK = 500;

const COLUMNS = [
  'id',
  'at',
  'method',
  'path',
  'status',
  'latencyMs',
  'crmCalls',
  'interface',
  'requestId',
  'tokenId',
  'connectionId',
  'errorCode',
  'actor',
] as const;

/** What an entry stores, in COLUMNS order (an entry may carry more fields than that). */
const valuesOf = (e: Partial<RequestLogEntry>) => COLUMNS.map((c) => e[c] ?? null);
const rowOf = (e: Partial<RequestLogEntry>) =>
  Object.fromEntries(COLUMNS.map((c) => [c, e[c] ?? null])) as unknown as Insertable<RequestLogTable>;

// SQLite: one prepared single-row INSERT per entry in one transaction, cheaper than preparing a
// 500-row statement each flush. Holding Kysely's connection keeps it out of Kysely's transactions.
function sqliteInserter(db: Kysely<Database>, sqlite: BetterSqlite3.Database) {
  const insert = sqlite.prepare(db.insertInto('request_log').values(rowOf({})).compile().sql);
  const insertAll = sqlite.transaction((entries: readonly RequestLogEntry[]) => {
    for (const e of entries) {
      insert.run(valuesOf(e));
    }
  });
  return (entries: readonly RequestLogEntry[]) => db.connection().execute(async () => insertAll(entries));
}

export function requestLogRepository(db: Kysely<Database>, sqlite?: BetterSqlite3.Database) {
  const insertSqlite = sqlite === undefined ? undefined : sqliteInserter(db, sqlite);
  return {
    async insertMany(entries: RequestLogEntry[]): Promise<void> {
      if (insertSqlite !== undefined) {
        await insertSqlite(entries);
        return;
      }
      for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
        await db
          .insertInto('request_log')
          .values(entries.slice(i, i + INSERT_CHUNK).map(rowOf))
          .execute();
      }
    },
    async query(filter: RequestLogFilter): Promise<RequestLogEntry[]> {
      let q = db.selectFrom('request_log').selectAll();
      if (filter.connectionId !== undefined) q = q.where('connectionId', '=', filter.connectionId);
      if (filter.tokenId !== undefined) q = q.where('tokenId', '=', filter.tokenId);
      if (filter.requestId !== undefined) q = q.where('requestId', '=', filter.requestId);
      if (filter.before !== undefined) q = q.where('at', '<', filter.before);
      if (filter.statusClass !== undefined) {
        q = q
          .where('status', '>=', filter.statusClass * 100)
          .where('status', '<', filter.statusClass * 100 + 100);
      }
      return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
    },
    async prune(before: string): Promise<number> {
      const r = await db.deleteFrom('request_log').where('at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Requests and errors (status 400 or more) per hour from `since`, per connection. */
    async usage(since: string, connectionId?: string): Promise<UsageBucket[]> {
      // The hour is the first 13 characters of the fixed-width ISO instant, on both dialects.
      const hour = sql<string>`substr(at, 1, 13)`;
      let q = db
        .selectFrom('request_log')
        .select([
          hour.as('hour'),
          'connectionId',
          (eb) => eb.fn.countAll<number>().as('requests'),
          sql<number>`sum(case when status >= 400 then 1 else 0 end)`.as('errors'),
        ])
        .where('at', '>=', since);
      if (connectionId !== undefined) q = q.where('connectionId', '=', connectionId);
      const rows = await q.groupBy([hour, 'connectionId']).orderBy(hour).execute();
      // PostgreSQL answers counts as text.
      return rows.map((r) => ({ ...r, requests: Number(r.requests), errors: Number(r.errors) }));
    },
    async updateStats(updates: ConnectionStatsUpdate[]): Promise<void> {
      for (const u of updates) {
        // Kysely leaves out the fields that are undefined: only what was seen is written.
        const set = {
          lastUsedAt: u.lastUsedAt,
          lastSuccessAt: u.lastSuccessAt,
          lastError: u.lastError?.message,
          lastErrorAt: u.lastError?.at,
          allowanceUsed: u.allowance?.used,
          allowanceLimit: u.allowance?.limit,
          allowanceAt: u.allowance?.at,
        };
        if (Object.values(set).every((v) => v === undefined)) continue;
        await db
          .insertInto('connection_stats')
          .values({ connectionId: u.connectionId, ...set })
          .onConflict((oc) => oc.column('connectionId').doUpdateSet(set))
          .execute();
      }
    },
    async stats(): Promise<ConnectionStats[]> {
      const rows = await db.selectFrom('connection_stats').selectAll().execute();
      return rows.map(({ allowanceUsed: used, allowanceLimit: limit, allowanceAt: at, ...r }) => ({
        ...r,
        allowance: used === null || limit === null || at === null ? null : { used, limit, at },
      }));
    },
  };
}
