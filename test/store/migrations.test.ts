import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator } from 'kysely';
import pg from 'pg';
import { readInput } from '../../src/jobs/stored-input.ts';
import { openDb } from '../../src/store/db.ts';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { legacyInputText } from '../helpers/legacy-input.ts';
import { dialects, iso, PG_URL } from './harness.ts';

const postgres = (await dialects()).find((d) => d.name === 'postgres');

test('PostgreSQL: opening a store succeeds while other clients create and drop schemas', {
  skip: postgres?.skip ?? 'no PostgreSQL harness',
}, async () => {
  // Kysely's migrator scanned every schema by name; one dropped mid-scan failed the open.
  const churn = new pg.Client({ connectionString: PG_URL });
  await churn.connect();
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const name = `churn_${process.pid}_${i}`;
      await churn.query(`create schema "${name}"`);
      await churn.query(`drop schema "${name}"`);
    }
  })();
  try {
    for (let i = 0; i < 8; i++) {
      const h = await postgres!.factory();
      try {
        const store = await h.open();
        assert.equal(store.dialect, 'postgres');
        assert.deepEqual(await store.connections.list(), []);
      } finally {
        await h.cleanup();
      }
    }
  } finally {
    running = false;
    await loop;
    await churn.end();
  }
});

for (const { name, factory, skip } of await dialects()) {
  test(`${name}: a store whose jobs an earlier version stored is upgraded, and their input is read back`, {
    skip,
  }, async () => {
    const h = await factory();
    try {
      // The schema as it was before input pages, with a job stored then (gzipped JSON lines).
      const [dataDir, databaseUrl, pgSchema] = h.location;
      const old = await openDb({ dataDir, databaseUrl, pgSchema: pgSchema || undefined });
      const migrator = new Migrator({
        db: old.db,
        provider: migrationProvider(old.dialect),
        ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
      });
      // The store's introspector looks in its own schema only (db.ts): another file's schema
      // dropped meanwhile does not fail this migration.
      const migrated = await migrator.migrateTo('004_console');
      assert.equal(migrated.error, undefined);
      const input = {
        objectName: 'Account',
        records: [{ Name: 'Before' }, { Name: 'Upgrade' }],
        via: 'bulk2',
      };
      await old.db
        .insertInto('jobs')
        .values({
          id: 'job_old',
          tokenId: 'tok',
          connectionId: 'conn',
          requestId: null,
          operation: 'insert',
          objectName: 'Account',
          input: legacyInputText(input, 'gz'),
          state: 'queued',
          interface: null,
          total: 2,
          processed: 0,
          succeeded: 0,
          failed: 0,
          crmJobIds: '[]',
          cancelRequested: 0,
          leaseOwner: null,
          leaseExpiresAt: null,
          attempts: 0,
          error: null,
          createdAt: iso(),
          startedAt: null,
          finishedAt: null,
          updatedAt: iso(),
        })
        .execute();
      await old.db.destroy();

      const store = await h.open();
      assert.deepEqual(await readInput(store.jobs, { id: 'job_old', total: 2 }), input);
      assert.equal(await store.jobs.inputPage('job_old', 0), undefined);
    } finally {
      await h.cleanup();
    }
  });
}
