import type { ExpressionBuilder, Kysely } from 'kysely';
import type { IdempotencyRow } from '../rows.ts';
import type { Database } from '../schema.ts';

/** The row of one token's key. */
const keyed = (tokenId: string, key: string) => (eb: ExpressionBuilder<Database, 'idempotency_keys'>) =>
  eb.and({ tokenId, key });

export function idempotencyRepository(db: Kysely<Database>) {
  return {
    /** Inserts the key in progress; when it exists, the existing row (the insert is the lock). */
    async claim(
      row: Pick<IdempotencyRow, 'tokenId' | 'key' | 'requestHash' | 'jobId'> & {
        leaseUntil: string;
        now: string;
      },
    ): Promise<{ created: true } | { created: false; row: IdempotencyRow }> {
      const { leaseUntil, now, ...given } = row;
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          ...given,
          state: 'in_progress',
          status: null,
          headers: null,
          body: null,
          leaseExpiresAt: leaseUntil,
          createdAt: now,
        })
        .onConflict((oc) => oc.columns(['tokenId', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted !== undefined) return { created: true };
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where(keyed(row.tokenId, row.key))
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
        .set({ state: 'done', ...answer })
        .where(keyed(tokenId, key))
        .execute();
    },

    async renew(tokenId: string, key: string, leaseUntil: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ leaseExpiresAt: leaseUntil })
        .where(keyed(tokenId, key))
        .where('state', '=', 'in_progress')
        .execute();
    },

    /** Forgets a key whose request never started (refused input): the client may fix it and use it again. */
    async release(tokenId: string, key: string): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where(keyed(tokenId, key))
        .where('state', '=', 'in_progress')
        .execute();
    },

    async prune(before: string): Promise<number> {
      const r = await db.deleteFrom('idempotency_keys').where('createdAt', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
