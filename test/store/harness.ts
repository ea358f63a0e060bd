// Opens stores for the dialect-parametrised suites: SQLite in a temp dir, PostgreSQL in a fresh schema
// that is dropped afterwards. PostgreSQL comes from DATABASE_URL or the local default; when it is
// unreachable the PostgreSQL half fails under CI=true and is skipped (loudly) otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';

export const PG_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface StoreHarness {
  dialect: 'sqlite' | 'postgres';
  /** Every call opens another instance on the same database (another process or service instance). */
  open(): Promise<Store>;
  /** Arguments for a child process to open the same database: dataDir, databaseUrl, pgSchema. */
  location: [string, string, string];
  cleanup(): Promise<void>;
}

export type HarnessFactory = () => Promise<StoreHarness>;

export function sqliteHarness(): Promise<StoreHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'crm-proxy-store-'));
  const opened: Store[] = [];
  return Promise.resolve({
    dialect: 'sqlite',
    location: [dir, '', ''],
    async open() {
      const s = await openStore({ dataDir: dir });
      opened.push(s);
      return s;
    },
    async cleanup() {
      await Promise.allSettled(opened.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

let schemaSeq = 0;

export async function postgresHarness(): Promise<StoreHarness> {
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${schemaSeq++}`;
  const opened: Store[] = [];
  return {
    dialect: 'postgres',
    location: [tmpdir(), PG_URL, schema],
    async open() {
      const s = await openStore({ databaseUrl: PG_URL, dataDir: tmpdir(), pgSchema: schema });
      opened.push(s);
      return s;
    },
    async cleanup() {
      await Promise.allSettled(opened.map((s) => s.close()));
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Null when PostgreSQL answers; otherwise the reason it does not. */
export async function postgresUnavailable(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await c.end().catch(() => {});
  }
}

/** The dialects to run, honouring CI=true (PostgreSQL must be there) and the loud skip otherwise. */
export async function dialects(): Promise<{ name: string; factory: HarnessFactory; skip: string | false }[]> {
  const reason = await postgresUnavailable();
  if (reason && process.env['CI'] !== 'true') {
    const banner = '!'.repeat(78);
    console.warn(
      `${banner}\n!! PostgreSQL at ${redactUrl(PG_URL)} is unreachable (${reason}).\n!! SKIPPING the PostgreSQL half of the store tests. Set CI=true to make this a failure.\n${banner}`,
    );
  }
  return [
    { name: 'sqlite', factory: sqliteHarness, skip: false },
    {
      name: 'postgres',
      factory: postgresHarness,
      skip: reason && process.env['CI'] !== 'true' ? `PostgreSQL unreachable: ${reason}` : false,
    },
  ];
}

function redactUrl(u: string): string {
  try {
    const url = new URL(u);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(DATABASE_URL)';
  }
}

export const iso = (ms = Date.now()) => new Date(ms).toISOString();
