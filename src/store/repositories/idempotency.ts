import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import type { IdempotencyRepository } from '../types.ts';

export function idempotencyRepository(db: Kysely<Database>): IdempotencyRepository {
  return {
    async claim(row) {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          tokenId: row.tokenId,
          key: row.key,
          requestHash: row.requestHash,
          state: 'in_progress',
          status: null,
          headers: null,
          body: null,
          jobId: row.jobId,
          leaseExpiresAt: row.leaseUntil,
          createdAt: row.now,
        })
        .onConflict((oc) => oc.columns(['tokenId', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted !== undefined) return { created: true };
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('tokenId', '=', row.tokenId)
        .where('key', '=', row.key)
        .executeTakeFirst();
      // Pruned between the two statements: the key is free again.
      if (existing === undefined) return this.claim(row);
      return { created: false, row: existing };
    },

    async complete(tokenId, key, answer) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', status: answer.status, headers: answer.headers, body: answer.body })
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .execute();
    },

    async renew(tokenId, key, leaseUntil) {
      await db
        .updateTable('idempotency_keys')
        .set({ leaseExpiresAt: leaseUntil })
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async release(tokenId, key) {
      await db
        .deleteFrom('idempotency_keys')
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async prune(before) {
      const r = await db.deleteFrom('idempotency_keys').where('createdAt', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
