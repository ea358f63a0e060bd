import type { Kysely, Selectable } from 'kysely';
import type { Database, OperatorKeysTable, OperatorsTable } from '../schema.ts';
import type { Operator, OperatorKey, OperatorSession, OperatorsRepository } from '../types.ts';

function toOperator(r: Selectable<OperatorsTable>): Operator {
  return { id: r.id, email: r.email, createdAt: r.created_at, lastSignInAt: r.last_sign_in_at };
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
    ...operatorAccounts(db),
    ...operatorSessions(db),
    ...operatorKeys(db),
  };
}

/** Operators: created, found, listed, their passwords and sign-ins. */
function operatorAccounts(
  db: Kysely<Database>,
): Pick<OperatorsRepository, 'insert' | 'findByEmail' | 'findById' | 'list' | 'setPassword' | 'signedIn'> {
  return {
    async insert(row) {
      const r = await db
        .insertInto('operators')
        .values({
          id: row.id,
          email: row.email,
          password_hash: row.passwordHash,
          created_at: row.now,
          last_sign_in_at: null,
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
    async list() {
      const rows = await db.selectFrom('operators').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toOperator);
    },
    async setPassword(id, passwordHash) {
      const r = await db
        .updateTable('operators')
        .set({ password_hash: passwordHash })
        .where('id', '=', id)
        .executeTakeFirst();
      // A new password ends every session of the account.
      await db.deleteFrom('operator_sessions').where('operator_id', '=', id).execute();
      return Number(r.numUpdatedRows) === 1;
    },
    async signedIn(id, now) {
      await db.updateTable('operators').set({ last_sign_in_at: now }).where('id', '=', id).execute();
    },
  };
}

/** Console sessions of operators. */
function operatorSessions(
  db: Kysely<Database>,
): Pick<
  OperatorsRepository,
  'insertSession' | 'findSession' | 'touchSession' | 'deleteSession' | 'pruneSessions'
> {
  return {
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
        })
        .execute();
    },
    async findSession(idHash) {
      const r = await db
        .selectFrom('operator_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return r
        ? {
            idHash: r.id_hash,
            operatorId: r.operator_id,
            csrfToken: r.csrf_token,
            createdAt: r.created_at,
            lastSeenAt: r.last_seen_at,
            expiresAt: r.expires_at,
          }
        : null;
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
    async pruneSessions(now, idleBefore) {
      const r = await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

/** Operator API keys. */
function operatorKeys(
  db: Kysely<Database>,
): Pick<OperatorsRepository, 'insertKey' | 'findKeyByHash' | 'listKeys' | 'revokeKey' | 'touchKey'> {
  return {
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
