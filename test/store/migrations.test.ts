import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { dialects, PG_URL } from './harness.ts';

const postgres = (await dialects()).find((d) => d.name === 'postgres');

test('PostgreSQL: opening a store succeeds while other clients create and drop schemas', {
  skip: postgres?.skip ?? 'no PostgreSQL harness',
}, async () => {
  // Kysely's migrator scans every schema by name; one dropped mid-scan used to fail the open.
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
