import type { Kysely, Selectable } from 'kysely';
import type { Database, OperatorKeysTable, OperatorSessionsTable, OperatorsTable } from '../schema.ts';
import type { Operator, OperatorKey, OperatorSession, OperatorsRepository } from '../types.ts';

function toOperator(r: Selectable<OperatorsTable>): Operator {
  return {
    id: r.id,
    email: r.email,
    createdAt: r.created_at,
    lastSignInAt: r.last_sign_in_at,
    disabledAt: r.disabled_at,
    canManage: Number(r.can_manage) === 1,
  };
}

function toSession(r: Selectable<OperatorSessionsTable>): OperatorSession {
  return {
    idHash: r.id_hash,
    operatorId: r.operator_id,
    csrfToken: r.csrf_token,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    address: r.address,
    userAgent: r.user_agent,
  };
}

/** Ends an operator's sessions and revokes its keys, inside the caller's transaction. */
async function cutOff(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('operator_id', '=', id).execute();
  await db
    .updateTable('operator_keys')
    .set({ revoked_at: now })
    .where('operator_id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

function toKey(r: Selectable<OperatorKeysTable>): OperatorKey {
  return {
    id: r.id,
    operatorId: r.operator_id,
    label: r.label,
    prefix: r.prefix,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
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
          password_hash: row.passwordHash,
          created_at: row.now,
          last_sign_in_at: null,
          disabled_at: null,
          can_manage: row.canManage ? 1 : 0,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toOperator(r);
    },
    async findByEmail(email) {
      const r = await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
      return r ? { ...toOperator(r), passwordHash: r.password_hash } : null;
    },
    async findById(id) {
      const r = await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toOperator(r) : null;
    },
    async findByIdWithHash(id) {
      const r = await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? { ...toOperator(r), passwordHash: r.password_hash } : null;
    },
    async list() {
      const rows = await db.selectFrom('operators').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toOperator);
    },
    async setPassword(id, passwordHash, now) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .updateTable('operators')
          .set({ password_hash: passwordHash })
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
          .set({ disabled_at: disabledAt })
          .where('id', '=', id)
          .executeTakeFirst();
        if (disabledAt !== null) await cutOff(tx, id, disabledAt);
        return Number(r.numUpdatedRows) === 1;
      });
    },
    async remove(id) {
      return db.transaction().execute(async (tx) => {
        await tx.deleteFrom('operator_sessions').where('operator_id', '=', id).execute();
        await tx.deleteFrom('operator_keys').where('operator_id', '=', id).execute();
        const r = await tx.deleteFrom('operators').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) === 1;
      });
    },
    async signedIn(id, now) {
      await db.updateTable('operators').set({ last_sign_in_at: now }).where('id', '=', id).execute();
    },
    // Console sessions of operators.
    async insertSession(s: OperatorSession) {
      await db
        .insertInto('operator_sessions')
        .values({
          id_hash: s.idHash,
          operator_id: s.operatorId,
          csrf_token: s.csrfToken,
          created_at: s.createdAt,
          last_seen_at: s.lastSeenAt,
          expires_at: s.expiresAt,
          address: s.address,
          user_agent: s.userAgent,
        })
        .execute();
    },
    async findSession(idHash) {
      const r = await db
        .selectFrom('operator_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return r ? toSession(r) : null;
    },
    async listSessions(operatorId) {
      let q = db.selectFrom('operator_sessions').selectAll();
      if (operatorId !== undefined) q = q.where('operator_id', '=', operatorId);
      const rows = await q.orderBy('created_at', 'desc').orderBy('id_hash').execute();
      return rows.map(toSession);
    },
    async touchSession(idHash, now) {
      await db
        .updateTable('operator_sessions')
        .set({ last_seen_at: now })
        .where('id_hash', '=', idHash)
        .execute();
    },
    async deleteSession(idHash) {
      await db.deleteFrom('operator_sessions').where('id_hash', '=', idHash).execute();
    },
    async deleteSessions(operatorId) {
      const r = await db
        .deleteFrom('operator_sessions')
        .where('operator_id', '=', operatorId)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async pruneSessions(now, idleBefore) {
      const r = await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    // Operator API keys.
    async insertKey(row) {
      const r = await db
        .insertInto('operator_keys')
        .values({
          id: row.id,
          operator_id: row.operatorId,
          label: row.label,
          prefix: row.prefix,
          hash: row.hash,
          created_at: row.createdAt,
          last_used_at: null,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
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
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toKey);
    },
    async revokeKey(id, now) {
      const r = await db
        .updateTable('operator_keys')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async touchKey(id, now) {
      await db.updateTable('operator_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}
