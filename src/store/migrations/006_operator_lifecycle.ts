import type { Kysely, Migration } from 'kysely';

// Operators that can be disabled, and whether each may manage the others (those that existed
// before all could: they keep that); the address and browser a console session signed in from;
// who did an operator action the request log records.
export const operatorLifecycle: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('operators').addColumn('disabled_at', 'text').execute();
    await db.schema
      .alterTable('operators')
      .addColumn('can_manage', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.alterTable('operator_sessions').addColumn('address', 'text').execute();
    await db.schema.alterTable('operator_sessions').addColumn('user_agent', 'text').execute();
    await db.schema
      .createIndex('operator_sessions_operator_idx')
      .on('operator_sessions')
      .column('operator_id')
      .execute();
    await db.schema.alterTable('request_log').addColumn('actor', 'text').execute();
  },
};
