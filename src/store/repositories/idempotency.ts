import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.ts';
import type { IdempotencyRepository, IdempotencyRow } from '../types.ts';

function toKey(r: Selectable<IdempotencyKeysTable>): IdempotencyRow {
  return {
    tokenId: r.token_id,
    key: r.key,
    requestHash: r.request_hash,
    state: r.state as IdempotencyRow['state'],
    status: r.status === null ? null : Number(r.status),
    headers: r.headers,
    body: r.body,
    jobId: r.job_id,
    leaseExpiresAt: r.lease_expires_at,
    createdAt: r.created_at,
  };
}

export function idempotencyRepository(db: Kysely<Database>): IdempotencyRepository {
  return {
    async claim(row) {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          token_id: row.tokenId,
          key: row.key,
          request_hash: row.requestHash,
          state: 'in_progress',
          status: null,
          headers: null,
          body: null,
          job_id: row.jobId,
          lease_expires_at: row.leaseUntil,
          created_at: row.now,
        })
        .onConflict((oc) => oc.columns(['token_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted !== undefined) return { created: true };
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('token_id', '=', row.tokenId)
        .where('key', '=', row.key)
        .executeTakeFirst();
      // Pruned between the two statements: the key is free again.
      if (existing === undefined) return this.claim(row);
      return { created: false, row: toKey(existing) };
    },

    async complete(tokenId, key, answer) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', status: answer.status, headers: answer.headers, body: answer.body })
        .where('token_id', '=', tokenId)
        .where('key', '=', key)
        .execute();
    },

    async renew(tokenId, key, leaseUntil) {
      await db
        .updateTable('idempotency_keys')
        .set({ lease_expires_at: leaseUntil })
        .where('token_id', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async release(tokenId, key) {
      await db
        .deleteFrom('idempotency_keys')
        .where('token_id', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async prune(before) {
      const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
