import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Clock, isoTime } from '../../lib/clock.ts';
import { retrying } from '../../lib/retry.ts';
import type { Database } from '../schema.ts';

// A lease table rather than advisory locks: it works on both dialects and a dead holder's row
// expires. Leases rely on the instances' clocks agreeing to within a fraction of ttlMs.
/** Wait before trying a held lock again: doubling from 5 ms to 200 ms; undefined past the deadline. */
export function nextLockAttempt(attempt: number, now: number, deadline: number): number | undefined {
  const left = deadline - now;
  if (left <= 0) return undefined;
  return Math.min(5 * 2 ** (attempt - 1), 200, left);
}

export class LockTimeoutError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`timed out waiting for lock ${key}`);
    this.key = key;
    this.name = 'LockTimeoutError';
  }
}

export function locksRepository(db: Kysely<Database>, clock: Clock) {
  async function tryAcquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = clock.now();
    const row = await db
      .insertInto('locks')
      .values({ key, owner, expiresAt: isoTime(now + ttlMs) })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ owner, expiresAt: isoTime(now + ttlMs) })
          .where('locks.expiresAt', '<=', isoTime(now)),
      )
      .returning('owner')
      .executeTakeFirst();
    return row?.owner === owner;
  }

  return {
    /** Runs `fn` holding `key` under a renewed `ttlMs` lease; LockTimeoutError after `waitMs` (default `ttlMs`). */
    async withLock<T>(
      key: string,
      ttlMs: number,
      fn: () => Promise<T>,
      options: { waitMs?: number } = {},
    ): Promise<T> {
      const owner = randomUUID();
      const deadline = clock.now() + (options.waitMs ?? ttlMs);
      const acquired = await retrying(clock, {
        attempt: () => tryAcquire(key, owner, ttlMs),
        next: (held, n) => (held ? undefined : nextLockAttempt(n, clock.now(), deadline)),
      });
      if (!acquired) throw new LockTimeoutError(key);
      const held = db.updateTable('locks').where('key', '=', key).where('owner', '=', owner);
      // Keep the lease while fn runs longer than expected; a failed renewal only shortens it.
      const renew = () => held.set({ expiresAt: isoTime(clock.now() + ttlMs) }).execute();
      const timer = setInterval(() => renew().catch(() => {}), Math.max(ttlMs / 3, 20));
      timer.unref();
      try {
        return await fn();
      } finally {
        clearInterval(timer);
        await db.deleteFrom('locks').where('key', '=', key).where('owner', '=', owner).execute();
      }
    },
  };
}
