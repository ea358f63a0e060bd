import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './001_initial.ts';
import { connect } from './003_connect.ts';

// Numbered, append-only. Kysely runs them in name order and records each in kysely_migration.
const migrations: Record<string, Migration> = {
  '001_initial': initial,
  '003_connect': connect,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
