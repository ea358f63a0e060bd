import type { Kysely, Selectable } from 'kysely';
import type { ConnectLink, ConnectState } from '../rows.ts';
import type { ConnectLinksTable, Database } from '../schema.ts';

/** A link as listed: never its secret's hash. */
const toLink = ({ secretHash: _hash, ...link }: Selectable<ConnectLinksTable>): ConnectLink => link;

const updated = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows) === 1;

export function connectStatesRepository(db: Kysely<Database>) {
  return {
    async insert(row: Omit<ConnectState, 'usedAt'>): Promise<void> {
      await db
        .insertInto('connect_states')
        .values({ ...row, sandbox: row.sandbox ? 1 : 0, usedAt: null })
        .execute();
    },
    async find(id: string): Promise<ConnectState | null> {
      const r = await db.selectFrom('connect_states').selectAll().where('id', '=', id).executeTakeFirst();
      return r === undefined ? null : { ...r, sandbox: r.sandbox === 1 };
    },
    /** Marks the state used; false when it was used already (of two concurrent callbacks, one wins). */
    async consume(id: string, now: string): Promise<boolean> {
      const r = await db
        .updateTable('connect_states')
        .set({ usedAt: now })
        .where('id', '=', id)
        .where('usedAt', 'is', null)
        .executeTakeFirst();
      return updated(r);
    },
    async prune(before: string): Promise<number> {
      const r = await db.deleteFrom('connect_states').where('expiresAt', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

export function connectLinksRepository(db: Kysely<Database>) {
  const links = () => db.selectFrom('connect_links').selectAll();
  /** Sets the link's fields if it is neither used nor revoked (and, with `now`, not expired). */
  const unused = async (
    id: string,
    set: { usedAt?: string; revokedAt?: string; connectionId?: string },
    now?: string,
  ) => {
    let q = db
      .updateTable('connect_links')
      .set(set)
      .where('id', '=', id)
      .where('usedAt', 'is', null)
      .where('revokedAt', 'is', null);
    if (now !== undefined) q = q.where('expiresAt', '>', now);
    return updated(await q.executeTakeFirst());
  };
  return {
    async insert(
      row: Omit<ConnectLink, 'usedAt' | 'revokedAt' | 'connectionId'> & { secretHash: string },
    ): Promise<ConnectLink> {
      const link = { ...row, usedAt: null, revokedAt: null, connectionId: null };
      await db.insertInto('connect_links').values(link).execute();
      return toLink(link);
    },
    async findBySecretHash(secretHash: string): Promise<ConnectLink | null> {
      const r = await links().where('secretHash', '=', secretHash).executeTakeFirst();
      return r === undefined ? null : toLink(r);
    },
    async find(id: string): Promise<ConnectLink | null> {
      const r = await links().where('id', '=', id).executeTakeFirst();
      return r === undefined ? null : toLink(r);
    },
    async list(): Promise<ConnectLink[]> {
      return (await links().orderBy('createdAt', 'desc').orderBy('id').execute()).map(toLink);
    },
    /** Sets revoked_at if the link is neither used nor revoked; false otherwise. */
    revoke(id: string, now: string): Promise<boolean> {
      return unused(id, { revokedAt: now });
    },
    /** Marks an unused, unrevoked, unexpired link used by `connectionId`; false when someone else used or revoked it first, or it expired. */
    consume(id: string, now: string, connectionId: string): Promise<boolean> {
      // Still within its time when the flow completes, not only when it was opened.
      return unused(id, { usedAt: now, connectionId }, now);
    },
  };
}
