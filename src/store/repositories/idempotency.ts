import type { Kysely } from 'kysely';
import type { IdempotencyRow } from '../rows.ts';
import type { Database } from '../schema.ts';

export function idempotencyRepository(db: Kysely<Database>) {
  return {
    /** Inserts the key in progress; when it exists, the existing row (the insert is the lock). */
    async claim(
      row: Pick<IdempotencyRow, 'tokenId' | 'key' | 'requestHash' | 'jobId'> & {
        leaseUntil: string;
        now: string;
      },
    ): Promise<{ created: true } | { created: false; row: IdempotencyRow }> {
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

    async complete(
      tokenId: string,
      key: string,
      answer: { status: number; headers: string; body: string },
    ): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', status: answer.status, headers: answer.headers, body: answer.body })
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .execute();
    },

    async renew(tokenId: string, key: string, leaseUntil: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ leaseExpiresAt: leaseUntil })
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    /** Forgets a key whose request never started (refused input): the client may fix it and use it again. */
    async release(tokenId: string, key: string): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('tokenId', '=', tokenId)
        .where('key', '=', key)
        .where('state', '=', 'in_progress')
        .execute();
    },

    async prune(before: string): Promise<number> {
      const r = await db.deleteFrom('idempotency_keys').where('createdAt', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
