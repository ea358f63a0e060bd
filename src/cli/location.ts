// Where the CLI's store is: found the way the service finds it (src/cli/environment.ts), printed
// by every command that opens it, and never created silently in a place nobody configured.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Config, loadConfig } from '../config/index.ts';
import { SQLITE_FILE } from '../store/db.ts';
import { type ResolvedEnvironment, resolveEnvironment } from './environment.ts';
import { CommandError } from './io.ts';
import { cliIo } from './process-io.ts';

export interface StoreLocation {
  config: Config;
  resolved: ResolvedEnvironment;
  /** One line: which store, and what chose it. */
  where: string;
  /** False for a SQLite file that does not exist yet (PostgreSQL: always true). */
  exists: boolean;
}

export function workingDirectory(): string {
  return cliIo().cwd ?? process.cwd();
}

export function locateStore(overrides: Record<string, string> = {}): StoreLocation {
  const resolved = resolveEnvironment({ ...cliIo().env, ...overrides }, workingDirectory());
  // The CRMs this CLI speaks (a build or a test may add one) each read their own settings.
  const config = loadConfig(resolved.env, cliIo().providers);
  if (config.databaseUrl !== undefined) {
    return {
      config,
      resolved,
      where: `PostgreSQL ${displayDatabaseUrl(config.databaseUrl)} (from ${resolved.dataDirSource})`,
      exists: true,
    };
  }
  const file = join(config.dataDir, SQLITE_FILE);
  return {
    config,
    resolved,
    where: `SQLite ${file} (from ${resolved.dataDirSource})`,
    exists: existsSync(file),
  };
}

/** A database URL as it may be shown: its password replaced. */
export function displayDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

const HOW_TO_POINT =
  "Point the CLI at the service's store: run it in the service's directory (where its .env is), set " +
  'CRM_PROXY_DATA_DIR=/path/to/data or DATABASE_URL=postgres://…, or name an env file with ' +
  'CRM_PROXY_CONFIG=/path/to/.env. To start a new empty store here, run: ./bin/crm-proxy.mjs init';

/**
 * A store that does not exist, in the default place nobody configured, is refused (asked about on a
 * terminal): creating it would give a new empty store and a new key instead of the service's.
 */
export async function ensureNotAccidental(location: StoreLocation): Promise<void> {
  if (location.exists || location.resolved.storeConfigured) return;
  const io = cliIo();
  const question = `No store at ${location.where.replace(/^SQLite /, '')}.`;
  const stdin = io.stdin as NodeJS.ReadStream;
  const stderr = io.stderr as NodeJS.WriteStream;
  if (stdin.isTTY === true && stderr.isTTY === true) {
    const rl = createInterface({ input: stdin, output: stderr, terminal: false });
    try {
      const answer = await new Promise<string>((done) =>
        rl.question(`${question}\n${HOW_TO_POINT}\nCreate a new empty store here? [y/N] `, done),
      );
      if (/^y(es)?$/i.test(answer.trim())) return;
    } finally {
      rl.close();
    }
    throw new CommandError('Nothing was created.');
  }
  throw new CommandError(`${question} Nothing was created.\n${HOW_TO_POINT}`);
}
