import type { Kysely, Migration } from 'kysely';

// Durable writes: jobs, their results in pieces, their journal, and idempotency keys.
// Portable types only (text, integer); JSON is stored as text.
export const jobs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('connection_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text')
      .addColumn('operation', 'text', (c) => c.notNull())
      .addColumn('object_name', 'text')
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('interface', 'text')
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('succeeded', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('crm_job_ids', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_expires_at', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('jobs_token_idx').on('jobs').columns(['token_id', 'created_at']).execute();
    await db.schema.createIndex('jobs_state_idx').on('jobs').columns(['state', 'lease_expires_at']).execute();

    await db.schema
      .createTable('job_results')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('piece', 'integer', (c) => c.notNull())
      .addColumn('first_index', 'integer', (c) => c.notNull())
      .addColumn('results', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('job_results_pk', ['job_id', 'piece'])
      .execute();

    await db.schema
      .createTable('job_journal')
      .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('job_journal_pk', ['job_id', 'key'])
      .execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('headers', 'text')
      .addColumn('body', 'text')
      .addColumn('job_id', 'text')
      .addColumn('lease_expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['token_id', 'key'])
      .execute();
    await db.schema
      .createIndex('idempotency_keys_created_idx')
      .on('idempotency_keys')
      .column('created_at')
      .execute();
  },
};
