import type { Kysely, Migration } from 'kysely';

// Operator accounts, their console sessions and API keys, the request log and what the service
// last saw of each connection. Portable types only (text, integer), like every migration.
export const consoleTables: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('operators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'text')
      .execute();

    await db.schema
      .createTable('operator_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id').onDelete('cascade'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('operator_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id').onDelete('cascade'))
      .addColumn('label', 'text')
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();

    await db.schema
      .createTable('request_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('latency_ms', 'integer', (c) => c.notNull())
      .addColumn('crm_calls', 'integer', (c) => c.notNull())
      .addColumn('interface', 'text')
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text')
      .addColumn('connection_id', 'text')
      .addColumn('error_code', 'text')
      .execute();
    await db.schema.createIndex('request_log_at_idx').on('request_log').column('at').execute();
    await db.schema
      .createIndex('request_log_connection_idx')
      .on('request_log')
      .columns(['connection_id', 'at'])
      .execute();
    await db.schema
      .createIndex('request_log_token_idx')
      .on('request_log')
      .columns(['token_id', 'at'])
      .execute();
    await db.schema
      .createIndex('request_log_request_id_idx')
      .on('request_log')
      .column('request_id')
      .execute();

    await db.schema
      .createTable('connection_stats')
      .addColumn('connection_id', 'text', (c) => c.primaryKey())
      .addColumn('last_used_at', 'text')
      .addColumn('last_error', 'text')
      .addColumn('last_error_at', 'text')
      .addColumn('last_success_at', 'text')
      .addColumn('allowance_used', 'integer')
      .addColumn('allowance_limit', 'integer')
      .addColumn('allowance_at', 'text')
      .execute();
  },
};
