import { Migrator } from 'kysely';
import { systemClock } from '../lib/clock.ts';
import { type ChangeHub, postgresChanges, sqliteChanges } from './changes.ts';
import { type DbOptions, openDb, withMigrationLock } from './db.ts';
import { migrationProvider } from './migrations/index.ts';
import { connectLinksRepository, connectStatesRepository } from './repositories/connect.ts';
import { connectionsRepository } from './repositories/connections.ts';
import { idempotencyRepository } from './repositories/idempotency.ts';
import { jobsRepository } from './repositories/jobs.ts';
import { locksRepository } from './repositories/locks.ts';
import { operatorsRepository } from './repositories/operators.ts';
import { requestLogRepository } from './repositories/request-log.ts';
import { tokensRepository } from './repositories/tokens.ts';

/** Opens the store (SQLite in dataDir, or PostgreSQL when databaseUrl is set) and brings its schema up to date. */
export async function openStore(opts: DbOptions) {
  const clock = opts.clock ?? systemClock;
  const handle = await openDb(opts);
  const { db } = handle;
  let own: ChangeHub;
  try {
    const migrator = new Migrator({
      db,
      provider: migrationProvider(handle.dialect),
      ...(handle.dialect === 'postgres' && handle.pgSchema ? { migrationTableSchema: handle.pgSchema } : {}),
    });
    await withMigrationLock(handle, clock, async () => {
      // Thrown inside the lock so that SQLite rolls the whole run back.
      const { error } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(`migration failed: ${String(error)}`);
    });
    own =
      handle.dialect === 'sqlite'
        ? sqliteChanges(handle.sqlite)
        : await postgresChanges(db, handle.databaseUrl, handle.pgSchema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const { relay } = opts;
  const hub: ChangeHub =
    relay === undefined
      ? own
      : {
          version: async () => `${await own.version()}/${await relay.version()}`,
          publish: async () => {
            await own.publish();
            await relay.announce();
          },
          close: () => own.close(),
        };
  return {
    dialect: handle.dialect,
    connections: connectionsRepository(db, hub),
    tokens: tokensRepository(db, hub),
    locks: locksRepository(db, clock),
    connectStates: connectStatesRepository(db),
    connectLinks: connectLinksRepository(db),
    operators: operatorsRepository(db),
    requestLog: requestLogRepository(db, handle.dialect === 'sqlite' ? handle.sqlite : undefined),
    jobs: jobsRepository(db),
    idempotency: idempotencyRepository(db),
    changes: { version: () => hub.version() },
    async close() {
      await hub.close();
      await db.destroy();
    },
  };
}
