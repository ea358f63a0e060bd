import type { Kysely, Selectable } from 'kysely';
import type { Database, OperatorKeysTable, OperatorsTable } from '../schema.ts';
import type { Operator, OperatorKey, OperatorSession, OperatorsRepository } from '../types.ts';

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

export function operatorsRepository(db: Kysely<Database>): OperatorsRepository {
  return {
    // Operators: created, found, listed, their passwords and sign-ins.
    async insert(row) {
      const r = await db
        .insertInto('operators')
        .values({
          id: row.id,
          email: row.email,
          passwordHash: row.passwordHash,
          createdAt: row.now,
          lastSignInAt: null,
          disabledAt: null,
          canManage: row.canManage ? 1 : 0,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toOperator(r);
    },
    async findByEmail(email) {
      const r = await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
      return r ? withHash(r) : null;
    },
    async findById(id) {
      const r = await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toOperator(r) : null;
    },
    async findByIdWithHash(id) {
      const r = await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? withHash(r) : null;
    },
    async list() {
      const rows = await db.selectFrom('operators').selectAll().orderBy('createdAt').orderBy('id').execute();
      return rows.map(toOperator);
    },
    async setPassword(id, passwordHash, now) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('operators')
          .set({ passwordHash: passwordHash })
          .where('id', '=', id)
          .executeTakeFirst();
        // A new password ends every session of the account and its keys.
        await cutOff(tx, id, now);
        return Number(r.numUpdatedRows) === 1;
      });
    },
    async setDisabled(id, disabledAt) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('operators')
          .set({ disabledAt: disabledAt })
          .where('id', '=', id)
          .executeTakeFirst();
        if (disabledAt !== null) await cutOff(tx, id, disabledAt);
        return Number(r.numUpdatedRows) === 1;
      });
    },
    async remove(id) {
      return db.transaction().execute(async (tx) => {
        await tx.deleteFrom('operator_sessions').where('operatorId', '=', id).execute();
        await tx.deleteFrom('operator_keys').where('operatorId', '=', id).execute();
        const r = await tx.deleteFrom('operators').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) === 1;
      });
    },
    async signedIn(id, now) {
      await db.updateTable('operators').set({ lastSignInAt: now }).where('id', '=', id).execute();
    },
    // Console sessions of operators.
    async insertSession(s: OperatorSession) {
      await db.insertInto('operator_sessions').values(s).execute();
    },
    async findSession(idHash) {
      const r = await db
        .selectFrom('operator_sessions')
        .selectAll()
        .where('idHash', '=', idHash)
        .executeTakeFirst();
      return r ?? null;
    },
    listSessions(operatorId) {
      let q = db.selectFrom('operator_sessions').selectAll();
      if (operatorId !== undefined) q = q.where('operatorId', '=', operatorId);
      return q.orderBy('createdAt', 'desc').orderBy('idHash').execute();
    },
    async touchSession(idHash, now) {
      await db
        .updateTable('operator_sessions')
        .set({ lastSeenAt: now })
        .where('idHash', '=', idHash)
        .execute();
    },
    async deleteSession(idHash) {
      await db.deleteFrom('operator_sessions').where('idHash', '=', idHash).execute();
    },
    async deleteSessions(operatorId) {
      const r = await db
        .deleteFrom('operator_sessions')
        .where('operatorId', '=', operatorId)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async pruneSessions(now, idleBefore) {
      const r = await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('expiresAt', '<=', now), eb('lastSeenAt', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    // Operator API keys.
    async insertKey(row) {
      const r = await db.insertInto('operator_keys').values(row).returningAll().executeTakeFirstOrThrow();
      return toKey(r);
    },
    async findKeyByHash(hash) {
      const r = await db.selectFrom('operator_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r ? toKey(r) : null;
    },
    async listKeys() {
      const rows = await db
        .selectFrom('operator_keys')
        .selectAll()
        .orderBy('createdAt')
        .orderBy('id')
        .execute();
      return rows.map(toKey);
    },
    async revokeKey(id, now) {
      const r = await db
        .updateTable('operator_keys')
        .set({ revokedAt: now })
        .where('id', '=', id)
        .where('revokedAt', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async touchKey(id, now) {
      await db.updateTable('operator_keys').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}
