import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, RequestLogTable } from '../schema.ts';
import type { ConnectionStats, RequestLogEntry, RequestLogRepository, UsageBucket } from '../types.ts';

function toEntry(r: Selectable<RequestLogTable>): RequestLogEntry {
  return {
    id: r.id,
    at: r.at,
    method: r.method,
    path: r.path,
    status: Number(r.status),
    latencyMs: Number(r.latency_ms),
    crmCalls: Number(r.crm_calls),
    interface: r.interface,
    requestId: r.request_id,
    tokenId: r.token_id,
    connectionId: r.connection_id,
    errorCode: r.error_code,
    actor: r.actor,
  };
}

/** Rows per INSERT: well under SQLite's 32,766 bound variables at 13 columns a row. */
const INSERT_CHUNK = 500;

const COLUMNS = [
  'id',
  'at',
  'method',
  'path',
  'status',
  'latency_ms',
  'crm_calls',
  'interface',
  'request_id',
  'token_id',
  'connection_id',
  'error_code',
  'actor',
] as const;

function row(e: RequestLogEntry) {
  return {
    id: e.id,
    at: e.at,
    method: e.method,
    path: e.path,
    status: e.status,
    latency_ms: e.latencyMs,
    crm_calls: e.crmCalls,
    interface: e.interface,
    request_id: e.requestId,
    token_id: e.tokenId,
    connection_id: e.connectionId,
    error_code: e.errorCode,
    actor: e.actor ?? null,
  };
}

/**
 * SQLite: one prepared single-row INSERT run for every entry in one transaction. Building and
 * preparing a fresh 500-row statement (6,000 parameters) on every flush cost several percent of
 * the service's CPU under load. It runs while holding Kysely's connection, so it never lands
 * inside a transaction Kysely has open.
 */
function sqliteInserter(db: Kysely<Database>, sqlite: BetterSqlite3.Database) {
  const insert = sqlite.prepare(
    `INSERT INTO request_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertAll = sqlite.transaction((entries: readonly RequestLogEntry[]) => {
    for (const e of entries) {
      insert.run(
        e.id,
        e.at,
        e.method,
        e.path,
        e.status,
        e.latencyMs,
        e.crmCalls,
        e.interface,
        e.requestId,
        e.tokenId,
        e.connectionId,
        e.errorCode,
        e.actor ?? null,
      );
    }
  });
  return (entries: readonly RequestLogEntry[]) => db.connection().execute(async () => insertAll(entries));
}

export function requestLogRepository(
  db: Kysely<Database>,
  sqlite?: BetterSqlite3.Database,
): RequestLogRepository {
  const insertSqlite = sqlite === undefined ? undefined : sqliteInserter(db, sqlite);
  return {
    // Request log entries: written in batches, queried, pruned.
    async insertMany(entries) {
      if (insertSqlite !== undefined) {
        await insertSqlite(entries);
        return;
      }
      for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
        await db
          .insertInto('request_log')
          .values(entries.slice(i, i + INSERT_CHUNK).map(row))
          .execute();
      }
    },
    async query(filter) {
      let q = db.selectFrom('request_log').selectAll();
      if (filter.connectionId !== undefined) q = q.where('connection_id', '=', filter.connectionId);
      if (filter.tokenId !== undefined) q = q.where('token_id', '=', filter.tokenId);
      if (filter.requestId !== undefined) q = q.where('request_id', '=', filter.requestId);
      if (filter.before !== undefined) q = q.where('at', '<', filter.before);
      if (filter.statusClass !== undefined) {
        q = q
          .where('status', '>=', filter.statusClass * 100)
          .where('status', '<', filter.statusClass * 100 + 100);
      }
      const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
      return rows.map(toEntry);
    },
    async prune(before) {
      const r = await db.deleteFrom('request_log').where('at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    // Usage figures and per-token statistics.
    async usage(since, connectionId) {
      // The hour is the first 13 characters of the fixed-width ISO instant, on both dialects.
      const hour = sql<string>`substr(at, 1, 13)`;
      let q = db
        .selectFrom('request_log')
        .select([
          hour.as('hour'),
          'connection_id',
          (eb) => eb.fn.countAll<number>().as('requests'),
          sql<number>`sum(case when status >= 400 then 1 else 0 end)`.as('errors'),
        ])
        .where('at', '>=', since);
      if (connectionId !== undefined) q = q.where('connection_id', '=', connectionId);
      const rows = await q.groupBy([hour, 'connection_id']).orderBy(hour).execute();
      return rows.map(
        (r): UsageBucket => ({
          hour: String(r.hour),
          connectionId: r.connection_id,
          requests: Number(r.requests),
          errors: Number(r.errors),
        }),
      );
    },
    async updateStats(updates) {
      for (const u of updates) {
        const set = {
          ...(u.lastUsedAt === undefined ? {} : { last_used_at: u.lastUsedAt }),
          ...(u.lastSuccessAt === undefined ? {} : { last_success_at: u.lastSuccessAt }),
          ...(u.lastError === undefined
            ? {}
            : { last_error: u.lastError.message, last_error_at: u.lastError.at }),
          ...(u.allowance === undefined
            ? {}
            : {
                allowance_used: u.allowance.used,
                allowance_limit: u.allowance.limit,
                allowance_at: u.allowance.at,
              }),
        };
        if (Object.keys(set).length === 0) continue;
        await db
          .insertInto('connection_stats')
          .values({ connection_id: u.connectionId, ...set })
          .onConflict((oc) => oc.column('connection_id').doUpdateSet(set))
          .execute();
      }
    },
    async stats() {
      const rows = await db.selectFrom('connection_stats').selectAll().execute();
      return rows.map(
        (r): ConnectionStats => ({
          connectionId: r.connection_id,
          lastUsedAt: r.last_used_at,
          lastError: r.last_error,
          lastErrorAt: r.last_error_at,
          lastSuccessAt: r.last_success_at,
          allowance:
            r.allowance_used === null || r.allowance_limit === null || r.allowance_at === null
              ? null
              : { used: Number(r.allowance_used), limit: Number(r.allowance_limit), at: r.allowance_at },
        }),
      );
    },
  };
}
