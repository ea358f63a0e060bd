import type { Kysely, Selectable, UpdateObject } from 'kysely';
import type { Operator, OperatorKey, OperatorSession, OperatorWithHash } from '../rows.ts';
import type { Database, OperatorKeysTable, OperatorsTable } from '../schema.ts';

/** An operator as the service sees it, without its password hash. */
function toOperator({ passwordHash: _hash, ...r }: Selectable<OperatorsTable>): Operator {
  return { ...r, canManage: r.canManage === 1 };
}

const withHash = (r: Selectable<OperatorsTable>) => ({ ...toOperator(r), passwordHash: r.passwordHash });

/** Ends an operator's sessions and revokes its keys, inside the caller's transaction. */
async function cutOff(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('operatorId', '=', id).execute();
  await db
    .updateTable('operator_keys')
    .set({ revokedAt: now })
    .where('operatorId', '=', id)
    .where('revokedAt', 'is', null)
    .execute();
}

function toKey({ hash: _hash, ...key }: Selectable<OperatorKeysTable>): OperatorKey {
  return key;
}

export function operatorsRepository(db: Kysely<Database>) {
  const byId = (id: string) => db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
  /** Changes an account, then (at `cutOffAt`) ends its sessions and revokes its keys, in one transaction. */
  const change = (id: string, set: UpdateObject<Database, 'operators'>, cutOffAt: string | null) =>
    db.transaction().execute(async (tx) => {
      const r = await tx.updateTable('operators').set(set).where('id', '=', id).executeTakeFirst();
      if (cutOffAt !== null) await cutOff(tx, id, cutOffAt);
      return Number(r.numUpdatedRows) === 1;
    });
  return {
    ...sessionsRepository(db),
    ...keysRepository(db),
    async insert({
      now,
      canManage,
      ...row
    }: Pick<OperatorWithHash, 'id' | 'email' | 'passwordHash' | 'canManage'> & {
      now: string;
    }): Promise<Operator> {
      const r = await db
        .insertInto('operators')
        .values({
          ...row,
          createdAt: now,
          lastSignInAt: null,
          disabledAt: null,
          canManage: canManage ? 1 : 0,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toOperator(r);
    },
    async findByEmail(email: string): Promise<OperatorWithHash | null> {
      const r = await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
      return r ? withHash(r) : null;
    },
    async findById(id: string): Promise<Operator | null> {
      const r = await byId(id);
      return r ? toOperator(r) : null;
    },
    async findByIdWithHash(id: string): Promise<OperatorWithHash | null> {
      const r = await byId(id);
      return r ? withHash(r) : null;
    },
    async list(): Promise<Operator[]> {
      const rows = await db.selectFrom('operators').selectAll().orderBy('createdAt').orderBy('id').execute();
      return rows.map(toOperator);
    },
    /** Sets the password, ends every session of the account and revokes its keys; false when unknown. */
    setPassword: (id: string, passwordHash: string, now: string) => change(id, { passwordHash }, now),
    /** Disables (ending its sessions and revoking its keys) or enables an account; false when unknown. */
    setDisabled: (id: string, disabledAt: string | null) => change(id, { disabledAt }, disabledAt),
    /** Removes an account with (foreign keys on delete cascade) its sessions and keys; false when unknown. */
    async remove(id: string): Promise<boolean> {
      const r = await db.deleteFrom('operators').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    },
    async signedIn(id: string, now: string): Promise<void> {
      await db.updateTable('operators').set({ lastSignInAt: now }).where('id', '=', id).execute();
    },
  };
}

/** Console sessions of operators. */
function sessionsRepository(db: Kysely<Database>) {
  return {
    async insertSession(s: OperatorSession): Promise<void> {
      await db.insertInto('operator_sessions').values(s).execute();
    },
    async findSession(idHash: string): Promise<OperatorSession | null> {
      const r = await db
        .selectFrom('operator_sessions')
        .selectAll()
        .where('idHash', '=', idHash)
        .executeTakeFirst();
      return r ?? null;
    },
    /** Sessions of one operator (or all), newest first. */
    listSessions(operatorId?: string): Promise<OperatorSession[]> {
      let q = db.selectFrom('operator_sessions').selectAll();
      if (operatorId !== undefined) q = q.where('operatorId', '=', operatorId);
      return q.orderBy('createdAt', 'desc').orderBy('idHash').execute();
    },
    async touchSession(idHash: string, now: string): Promise<void> {
      await db
        .updateTable('operator_sessions')
        .set({ lastSeenAt: now })
        .where('idHash', '=', idHash)
        .execute();
    },
    async deleteSession(idHash: string): Promise<void> {
      await db.deleteFrom('operator_sessions').where('idHash', '=', idHash).execute();
    },
    async deleteSessions(operatorId: string): Promise<number> {
      const r = await db
        .deleteFrom('operator_sessions')
        .where('operatorId', '=', operatorId)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Deletes sessions that expired before `now` or were idle since before `idleBefore`; returns how many. */
    async pruneSessions(now: string, idleBefore: string): Promise<number> {
      const r = await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('lastSeenAt', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

/** Operators' API keys. */
function keysRepository(db: Kysely<Database>) {
  return {
    async insertKey(row: OperatorKey & { hash: string }): Promise<OperatorKey> {
      const r = await db.insertInto('operator_keys').values(row).returningAll().executeTakeFirstOrThrow();
      return toKey(r);
    },
    async findKeyByHash(hash: string): Promise<OperatorKey | null> {
      const r = await db.selectFrom('operator_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r ? toKey(r) : null;
    },
    async listKeys(): Promise<OperatorKey[]> {
      const rows = await db
        .selectFrom('operator_keys')
        .selectAll()
        .orderBy('createdAt')
        .orderBy('id')
        .execute();
      return rows.map(toKey);
    },
    async revokeKey(id: string, now: string): Promise<boolean> {
      const r = await db
        .updateTable('operator_keys')
        .set({ revokedAt: now })
        .where('id', '=', id)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async touchKey(id: string, now: string): Promise<void> {
      await db.updateTable('operator_keys').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}
