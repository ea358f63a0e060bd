import type { Kysely, Selectable } from 'kysely';
import type { ConnectLinksTable, ConnectStatesTable, Database } from '../schema.ts';
import type {
  ConnectLink,
  ConnectLinksRepository,
  ConnectState,
  ConnectStatesRepository,
  Provider,
} from '../types.ts';

function toState(r: Selectable<ConnectStatesTable>): ConnectState {
  return {
    id: r.id,
    provider: r.provider as Provider,
    loginUrl: r.login_url,
    sandbox: Number(r.sandbox) === 1,
    label: r.label,
    reconnectId: r.reconnect_id,
    linkId: r.link_id,
    returnTo: r.return_to,
    bindingHash: r.binding_hash,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

export function connectStatesRepository(db: Kysely<Database>): ConnectStatesRepository {
  return {
    async insert(row) {
      await db
        .insertInto('connect_states')
        .values({
          id: row.id,
          provider: row.provider,
          login_url: row.loginUrl,
          sandbox: row.sandbox ? 1 : 0,
          label: row.label,
          reconnect_id: row.reconnectId,
          link_id: row.linkId,
          return_to: row.returnTo,
          binding_hash: row.bindingHash,
          created_at: row.createdAt,
          expires_at: row.expiresAt,
          used_at: null,
        })
        .execute();
    },
    async find(id) {
      const r = await db.selectFrom('connect_states').selectAll().where('id', '=', id).executeTakeFirst();
      return r === undefined ? null : toState(r);
    },
    async consume(id, now) {
      // One conditional UPDATE: of two callbacks carrying the same state, exactly one matches.
      const r = await db
        .updateTable('connect_states')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async prune(before) {
      const r = await db.deleteFrom('connect_states').where('expires_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

function toLink(r: Selectable<ConnectLinksTable>): ConnectLink {
  return {
    id: r.id,
    provider: r.provider as Provider,
    label: r.label,
    loginUrl: r.login_url,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    revokedAt: r.revoked_at,
    connectionId: r.connection_id,
  };
}

export function connectLinksRepository(db: Kysely<Database>): ConnectLinksRepository {
  return {
    async insert(row) {
      const r = await db
        .insertInto('connect_links')
        .values({
          id: row.id,
          secret_hash: row.secretHash,
          provider: row.provider,
          label: row.label,
          login_url: row.loginUrl,
          created_at: row.createdAt,
          expires_at: row.expiresAt,
          used_at: null,
          revoked_at: null,
          connection_id: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLink(r);
    },
    async findBySecretHash(secretHash) {
      const r = await db
        .selectFrom('connect_links')
        .selectAll()
        .where('secret_hash', '=', secretHash)
        .executeTakeFirst();
      return r === undefined ? null : toLink(r);
    },
    async find(id) {
      const r = await db.selectFrom('connect_links').selectAll().where('id', '=', id).executeTakeFirst();
      return r === undefined ? null : toLink(r);
    },
    async list() {
      const rows = await db
        .selectFrom('connect_links')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute();
      return rows.map(toLink);
    },
    async revoke(id, now) {
      const r = await db
        .updateTable('connect_links')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async consume(id, now, connectionId) {
      const r = await db
        .updateTable('connect_links')
        .set({ used_at: now, connection_id: connectionId })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        // Still within its time when the flow completes, not only when it was opened.
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
