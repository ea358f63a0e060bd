import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './001_initial.ts';
import { jobs } from './002_jobs.ts';
import { connect } from './003_connect.ts';
import { consoleTables } from './004_console.ts';
import { jobInputPages } from './005_job_input_pages.ts';
import { operatorLifecycle } from './006_operator_lifecycle.ts';

/** Numbered, append-only. Kysely runs them in name order and records each in kysely_migration. */
export function migrationProvider(dialect: 'sqlite' | 'postgres'): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '001_initial': initial,
    '002_jobs': jobs,
    '003_connect': connect,
    '004_console': consoleTables,
    '005_job_input_pages': jobInputPages(dialect),
    '006_operator_lifecycle': operatorLifecycle,
  };
  return { getMigrations: async () => migrations };
}
