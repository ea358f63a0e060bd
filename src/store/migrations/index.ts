import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './001_initial.ts';
import { jobs } from './002_jobs.ts';

// Numbered, append-only. Kysely runs them in name order and records each in kysely_migration.
const migrations: Record<string, Migration> = {
  '001_initial': initial,
  '002_jobs': jobs,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
