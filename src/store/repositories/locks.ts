import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { type LockOptions, type LocksRepository, LockTimeoutError } from '../types.ts';

// A lease table rather than PostgreSQL advisory locks: the same code works on SQLite (several
// processes on one file) and PostgreSQL (several instances), and a lease survives no crash — a dead
// holder's row simply expires. Leases rely on the instances' clocks agreeing to within a fraction of ttlMs.
export function locksRepository(db: Kysely<Database>): LocksRepository {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function tryAcquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const row = await db
      .insertInto('locks')
      .values({ key, owner, expires_at: iso(now + ttlMs) })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ owner, expires_at: iso(now + ttlMs) })
          .where('locks.expires_at', '<=', iso(now)),
      )
      .returning('owner')
      .executeTakeFirst();
    return row?.owner === owner;
  }

  async function renew(key: string, owner: string, ttlMs: number): Promise<void> {
    await db
      .updateTable('locks')
      .set({ expires_at: iso(Date.now() + ttlMs) })
      .where('key', '=', key)
      .where('owner', '=', owner)
      .execute();
  }

  async function release(key: string, owner: string): Promise<void> {
    await db.deleteFrom('locks').where('key', '=', key).where('owner', '=', owner).execute();
  }

  return {
    async withLock<T>(
      key: string,
      ttlMs: number,
      fn: () => Promise<T>,
      options: LockOptions = {},
    ): Promise<T> {
      const owner = randomUUID();
      const deadline = Date.now() + (options.waitMs ?? ttlMs);
      let delay = 5;
      while (!(await tryAcquire(key, owner, ttlMs))) {
        const left = deadline - Date.now();
        if (left <= 0) throw new LockTimeoutError(key);
        await sleep(Math.min(delay, left));
        delay = Math.min(delay * 2, 200);
      }
      // Keep the lease while fn runs longer than expected; a failed renewal only shortens it.
      const timer = setInterval(() => renew(key, owner, ttlMs).catch(() => {}), Math.max(ttlMs / 3, 20));
      timer.unref();
      try {
        return await fn();
      } finally {
        clearInterval(timer);
        await release(key, owner);
      }
    },
  };
}
