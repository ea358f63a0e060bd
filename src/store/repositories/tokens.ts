import type { Kysely, Selectable } from 'kysely';
import type { ChangeHub } from '../changes.ts';
import type { Database, TokensTable } from '../schema.ts';
import type { NewTokenRow, Region, TokenRecord, TokenRecordWithHash, TokensRepository } from '../types.ts';

function toRecord(r: Selectable<TokensTable>): TokenRecord {
  return {
    id: r.id,
    connectionId: r.connection_id,
    name: r.name,
    prefix: r.prefix,
    region: r.region as Region,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

export function tokensRepository(db: Kysely<Database>, changes: ChangeHub): TokensRepository {
  return {
    async insert(row: NewTokenRow) {
      const r = await db
        .insertInto('tokens')
        .values({
          id: row.id,
          connection_id: row.connectionId,
          name: row.name,
          prefix: row.prefix,
          hash: row.hash,
          region: row.region,
          created_at: row.now,
          last_used_at: null,
          expires_at: row.expiresAt,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(r);
    },

    async findByPrefix(prefix: string): Promise<TokenRecordWithHash[]> {
      const rows = await db.selectFrom('tokens').selectAll().where('prefix', '=', prefix).execute();
      return rows.map((r) => ({ ...toRecord(r), hash: r.hash }));
    },

    async findById(id: string) {
      const r = await db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toRecord(r) : null;
    },

    async list(connectionId?: string) {
      let q = db.selectFrom('tokens').selectAll();
      if (connectionId !== undefined) q = q.where('connection_id', '=', connectionId);
      const rows = await q.orderBy('created_at').orderBy('id').execute();
      return rows.map(toRecord);
    },

    async revoke(id: string, now: string) {
      const r = await db
        .updateTable('tokens')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const changed = Number(r.numUpdatedRows) === 1;
      if (changed) await changes.publish();
      return changed;
    },

    async touch(id: string, now: string) {
      await db.updateTable('tokens').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}
