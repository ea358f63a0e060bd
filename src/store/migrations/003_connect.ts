import type { Kysely, Migration } from 'kysely';

// The OAuth connect flow: single-use states, one-time connect links, and what a connection was
// connected to (the CRM account id, and the Salesforce login host its refresh token belongs to).
export const connect: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('connections').addColumn('account_id', 'text').execute();
    await db.schema.alterTable('connections').addColumn('login_url', 'text').execute();

    await db.schema
      .createTable('connect_states')
      // SHA-256 of the `state` value: the store never holds a state that could be replayed.
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('login_url', 'text', (c) => c.notNull())
      .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('label', 'text')
      .addColumn('reconnect_id', 'text')
      .addColumn('link_id', 'text')
      .addColumn('return_to', 'text')
      .addColumn('binding_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema
      .createIndex('connect_states_expires_idx')
      .on('connect_states')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('connect_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('login_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addColumn('revoked_at', 'text')
      .addColumn('connection_id', 'text')
      .execute();
  },
};
