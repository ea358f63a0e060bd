import type { Kysely } from 'kysely';
import type { ChangeHub } from '../changes.ts';
import type { NewTokenRow, TokenRecord, TokenRecordWithHash } from '../rows.ts';
import type { Database } from '../schema.ts';

function toRecord({ hash: _hash, ...record }: TokenRecordWithHash): TokenRecord {
  return record;
}

export function tokensRepository(db: Kysely<Database>, changes: ChangeHub) {
  return {
    async insert({ now, ...row }: NewTokenRow): Promise<TokenRecord> {
      const r = await db
        .insertInto('tokens')
        .values({ ...row, createdAt: now, lastUsedAt: null, revokedAt: null })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(r);
    },

    findByPrefix(prefix: string): Promise<TokenRecordWithHash[]> {
      return db.selectFrom('tokens').selectAll().where('prefix', '=', prefix).execute();
    },

    async findById(id: string): Promise<TokenRecord | null> {
      const r = await db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toRecord(r) : null;
    },

    async list(connectionId?: string): Promise<TokenRecord[]> {
      let q = db.selectFrom('tokens').selectAll();
      if (connectionId !== undefined) q = q.where('connectionId', '=', connectionId);
      const rows = await q.orderBy('createdAt').orderBy('id').execute();
      return rows.map(toRecord);
    },

    /** Sets revoked_at if not set yet; false when the token does not exist or was already revoked. */
    async revoke(id: string, now: string): Promise<boolean> {
      const r = await db
        .updateTable('tokens')
        .set({ revokedAt: now })
        .where('id', '=', id)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      const changed = Number(r.numUpdatedRows) === 1;
      if (changed) await changes.publish();
      return changed;
    },

    async touch(id: string, now: string): Promise<void> {
      await db.updateTable('tokens').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}
