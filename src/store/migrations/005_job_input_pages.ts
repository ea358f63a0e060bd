import type { Kysely, Migration } from 'kysely';

// A job's input list (records or ids) in pages, one row per page holding its gzipped JSON; the
// input without its list stays in `jobs.input`, where jobs stored before keep their whole input.
// Bytes, unlike every other column: the only type the two dialects name differently.
export function jobInputPages(dialect: 'sqlite' | 'postgres'): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('job_input_pages')
        .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
        .addColumn('page', 'integer', (c) => c.notNull())
        .addColumn('body', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('job_input_pages_pk', ['job_id', 'page'])
        .execute();
    },
  };
}
