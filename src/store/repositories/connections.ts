import { expressionBuilder, type Kysely, type Selectable, type UpdateObject } from 'kysely';
import type { ChangeHub } from '../changes.ts';
import type {
  Connection,
  ConnectionAccount,
  ConnectionStatus,
  NewConnectionRow,
  SealedSecret,
} from '../rows.ts';
import type { ConnectionsTable, Database } from '../schema.ts';

function toConnection(r: Selectable<ConnectionsTable>): Connection {
  const { credentialsCiphertext: _c, credentialsKeyId: _k, ...connection } = r;
  return { ...connection, sandbox: r.sandbox === 1 };
}

/** The columns that hold sealed credentials, written at `now`. */
const sealedAt = (sealed: SealedSecret, now: string) => ({
  credentialsCiphertext: sealed.ciphertext,
  credentialsKeyId: sealed.keyId,
  updatedAt: now,
});

export function connectionsRepository(db: Kysely<Database>, changes: ChangeHub) {
  /** Runs a one-row UPDATE; true when it matched, after announcing the change when `announce`. */
  const update = async (
    id: string,
    set: UpdateObject<Database, 'connections'>,
    options: { version?: number; announce?: boolean } = {},
  ) => {
    let q = db.updateTable('connections').set(set).where('id', '=', id);
    if (options.version !== undefined) q = q.where('credentialsVersion', '=', options.version);
    const changed = Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
    if (changed && options.announce) await changes.publish();
    return changed;
  };
  return {
    async insert({ credentials, now, sandbox, ...row }: NewConnectionRow): Promise<Connection> {
      const inserted = await db
        .insertInto('connections')
        .values({
          ...row,
          sandbox: sandbox ? 1 : 0,
          status: 'active',
          statusReason: null,
          credentialsCiphertext: credentials.ciphertext,
          credentialsKeyId: credentials.keyId,
          credentialsVersion: 1,
          createdAt: now,
          updatedAt: now,
          accountId: row.accountId ?? null,
          loginUrl: row.loginUrl ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toConnection(inserted);
    },
    async find(id: string): Promise<(Connection & { credentials: SealedSecret }) | null> {
      const r = await db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r) return null;
      return {
        ...toConnection(r),
        credentials: { keyId: r.credentialsKeyId, ciphertext: r.credentialsCiphertext },
      };
    },
    async list(): Promise<Connection[]> {
      const rows = await db
        .selectFrom('connections')
        .selectAll()
        .orderBy('createdAt')
        .orderBy('id')
        .execute();
      return rows.map(toConnection);
    },
    /** Deletes the connection and (foreign key on delete cascade) its API tokens; false when it did not exist. */
    async remove(id: string): Promise<boolean> {
      const r = await db.deleteFrom('connections').where('id', '=', id).executeTakeFirst();
      const deleted = Number(r.numDeletedRows) > 0;
      if (deleted) await changes.publish();
      return deleted;
    },
    /** Writes new credentials only if the stored version is still `expectedVersion` (one writer wins); bumps it. */
    compareAndSetCredentials(id: string, expectedVersion: number, sealed: SealedSecret, now: string) {
      const bumped = expressionBuilder<Database, 'connections'>()('credentialsVersion', '+', 1);
      const set = { ...sealedAt(sealed, now), credentialsVersion: bumped };
      return update(id, set, { version: expectedVersion });
    },
    /** Re-seals the same plaintext under another key; the version is left alone (the secret did not change). */
    replaceSealed(id: string, expectedVersion: number, sealed: SealedSecret, now: string) {
      return update(id, sealedAt(sealed, now), { version: expectedVersion });
    },
    setStatus(id: string, status: ConnectionStatus, reason: string | null, now: string) {
      return update(id, { status, statusReason: reason, updatedAt: now }, { announce: true });
    },
    /** Records the account, login host and instance URL a re-connect reached; false when the connection is gone. */
    setAccount(id: string, account: ConnectionAccount, now: string) {
      const { accountId, loginUrl, instanceUrl } = account;
      return update(id, { accountId, loginUrl, instanceUrl, updatedAt: now }, { announce: true });
    },
  };
}
