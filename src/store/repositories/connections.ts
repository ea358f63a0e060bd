import type { Kysely, Selectable } from 'kysely';
import type { ChangeHub } from '../changes.ts';
import type { ConnectionsTable, Database } from '../schema.ts';
import type {
  Connection,
  ConnectionAccount,
  ConnectionStatus,
  ConnectionsRepository,
  ConnectionWithSecret,
  NewConnectionRow,
  Provider,
  Region,
  SealedSecret,
} from '../types.ts';

function toConnection(r: Selectable<ConnectionsTable>): Connection {
  return {
    id: r.id,
    provider: r.provider as Provider,
    region: r.region as Region,
    label: r.label,
    instanceUrl: r.instance_url,
    apiBaseUrl: r.api_base_url,
    sandbox: Number(r.sandbox) === 1,
    status: r.status as ConnectionStatus,
    statusReason: r.status_reason,
    credentialsVersion: Number(r.credentials_version),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    accountId: r.account_id ?? null,
    loginUrl: r.login_url ?? null,
  };
}

export function connectionsRepository(db: Kysely<Database>, changes: ChangeHub): ConnectionsRepository {
  return {
    // Connections: added, found, listed, removed.
    async insert(row: NewConnectionRow) {
      const inserted = await db
        .insertInto('connections')
        .values({
          id: row.id,
          provider: row.provider,
          region: row.region,
          label: row.label,
          instance_url: row.instanceUrl,
          api_base_url: row.apiBaseUrl,
          sandbox: row.sandbox ? 1 : 0,
          status: 'active',
          status_reason: null,
          credentials_ciphertext: row.credentials.ciphertext,
          credentials_key_id: row.credentials.keyId,
          credentials_version: 1,
          created_at: row.now,
          updated_at: row.now,
          account_id: row.accountId ?? null,
          login_url: row.loginUrl ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toConnection(inserted);
    },
    async find(id: string): Promise<ConnectionWithSecret | null> {
      const r = await db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r) return null;
      return {
        ...toConnection(r),
        credentials: { keyId: r.credentials_key_id, ciphertext: r.credentials_ciphertext },
      };
    },
    async list() {
      const rows = await db
        .selectFrom('connections')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toConnection);
    },
    async remove(id: string) {
      const deleted = await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('tokens').where('connection_id', '=', id).execute();
        const r = await trx.deleteFrom('connections').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      });
      if (deleted) await changes.publish();
      return deleted;
    },
    // A connection's credentials, status and account, changed in place.
    async compareAndSetCredentials(id: string, expectedVersion: number, sealed: SealedSecret, now: string) {
      // One conditional UPDATE: of two concurrent writers holding the same version, exactly one matches.
      const r = await db
        .updateTable('connections')
        .set((eb) => ({
          credentials_ciphertext: sealed.ciphertext,
          credentials_key_id: sealed.keyId,
          credentials_version: eb('credentials_version', '+', 1),
          updated_at: now,
        }))
        .where('id', '=', id)
        .where('credentials_version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async replaceSealed(id: string, expectedVersion: number, sealed: SealedSecret, now: string) {
      const r = await db
        .updateTable('connections')
        .set({ credentials_ciphertext: sealed.ciphertext, credentials_key_id: sealed.keyId, updated_at: now })
        .where('id', '=', id)
        .where('credentials_version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async setStatus(id: string, status: ConnectionStatus, reason: string | null, now: string) {
      const r = await db
        .updateTable('connections')
        .set({ status, status_reason: reason, updated_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      const changed = Number(r.numUpdatedRows) === 1;
      if (changed) await changes.publish();
      return changed;
    },
    async setAccount(id: string, account: ConnectionAccount, now: string) {
      const r = await db
        .updateTable('connections')
        .set({
          account_id: account.accountId,
          login_url: account.loginUrl,
          instance_url: account.instanceUrl,
          updated_at: now,
        })
        .where('id', '=', id)
        .executeTakeFirst();
      const changed = Number(r.numUpdatedRows) === 1;
      if (changed) await changes.publish();
      return changed;
    },
  };
}
