import type { Kysely, Migration } from 'kysely';

// Only portable types (text, integer) so the same migration runs on SQLite and PostgreSQL.
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('connections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('instance_url', 'text')
      .addColumn('api_base_url', 'text')
      .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('credentials_ciphertext', 'text', (c) => c.notNull())
      .addColumn('credentials_key_id', 'text', (c) => c.notNull())
      .addColumn('credentials_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('connection_id', 'text', (c) => c.notNull().references('connections.id').onDelete('cascade'))
      .addColumn('name', 'text')
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('region', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('tokens_prefix_idx').on('tokens').column('prefix').execute();
    await db.schema.createIndex('tokens_connection_idx').on('tokens').column('connection_id').execute();

    await db.schema
      .createTable('locks')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
  },
};
