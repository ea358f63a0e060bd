// Where things are, as the CLI sees them: the configuration (environment, then the CRM_PROXY_CONFIG
// file, then .env: files only fill in what is unset), the store it names, and the running service.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseEnv } from 'node:util';
import { loadConfig } from '../config/index.ts';
import { ConfigError } from '../config/settings.ts';
import { SQLITE_FILE } from '../store/db.ts';
import { CommandError, cliIo } from './io.ts';
import { launcherSettings, readSandboxFile } from './sandbox-bootstrap.ts';

export type StoreLocation = ReturnType<typeof locateStore>;

export function locateStore(overrides: Record<string, string> = {}) {
  const resolved = resolveEnvironment({ ...cliIo().env, ...overrides }, cliIo().cwd ?? process.cwd());
  // The CRMs this CLI speaks (a build or a test may add one) each read their own settings.
  const config = loadConfig(resolved.env, cliIo().providers);
  const { databaseUrl } = config;
  const file = join(config.dataDir, SQLITE_FILE);
  return {
    config,
    resolved,
    // One line: which store, and what chose it.
    where: `${databaseUrl === undefined ? `SQLite ${file}` : `PostgreSQL ${displayDatabaseUrl(databaseUrl)}`} (from ${resolved.dataDirSource})`,
    exists: databaseUrl !== undefined || existsSync(file),
    launcher: launcherSettings(resolved.env, config.port),
  };
}

function displayDatabaseUrl(url: string): string {
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

/** Refuses (or asks on a terminal) to create a store nobody configured: it would not be the service's. */
export async function ensureNotAccidental(location: StoreLocation): Promise<void> {
  if (location.exists || location.resolved.storeConfigured) return;
  const io = cliIo();
  const question = `No store at ${location.where.replace(/^SQLite /, '')}.`;
  const stdin = io.stdin as NodeJS.ReadStream;
  const stderr = io.stderr as NodeJS.WriteStream;
  if (stdin.isTTY === true && stderr.isTTY === true) {
    const rl = createInterface({ input: stdin, output: stderr, terminal: false });
    try {
      const answer = await rl.question(`${question}\n${HOW_TO_POINT}\nCreate a new empty store here? [y/N] `);
      if (/^y(es)?$/i.test(answer.trim())) return;
    } finally {
      rl.close();
    }
    throw new CommandError('Nothing was created.');
  }
  throw new CommandError(`${question} Nothing was created.\n${HOW_TO_POINT}`);
}

type Env = Record<string, string | undefined>;

function readEnvFile(file: string): Env {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Env;
  } catch (err) {
    throw new ConfigError(`${file} could not be read as KEY=value lines: ${(err as Error).message}`);
  }
}

const set = (env: Env, name: string): boolean => (env[name] ?? '').trim() !== '';
const where = (source: { file: string | null }) =>
  source.file === null ? 'in the environment' : `in ${source.file}`;

/** The merged variables (CRM_PROXY_DATA_DIR made absolute), the files read, and what named the store. */
function resolveEnvironment(env: Env, cwd: string) {
  const sources: Array<{ vars: Env; file: string | null }> = [{ vars: env, file: null }];
  const named = env['CRM_PROXY_CONFIG']?.trim();
  if (named) {
    const file = resolve(cwd, named);
    if (!existsSync(file)) {
      throw new ConfigError(
        `CRM_PROXY_CONFIG names ${file}, which does not exist; point it at the service's env file or unset it`,
      );
    }
    sources.push({ vars: readEnvFile(file), file });
  }
  const dotEnv = join(cwd, '.env');
  if (existsSync(dotEnv)) sources.push({ vars: readEnvFile(dotEnv), file: dotEnv });

  const merged: Env = {};
  for (const { vars } of [...sources].reverse()) {
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) merged[k] = v;
  }
  const dataDirFrom = sources.find((s) => set(s.vars, 'CRM_PROXY_DATA_DIR'));
  const databaseFrom = sources.find((s) => set(s.vars, 'DATABASE_URL'));
  let dataDirSource: string;
  if (dataDirFrom === undefined) {
    merged['CRM_PROXY_DATA_DIR'] = join(cwd, 'data');
    dataDirSource = `the default ./data of the working directory ${cwd}`;
  } else {
    const raw = String(dataDirFrom.vars['CRM_PROXY_DATA_DIR']).trim();
    // A relative path in a file means relative to that file, wherever the command runs.
    const base = dataDirFrom.file === null ? cwd : dirname(dataDirFrom.file);
    merged['CRM_PROXY_DATA_DIR'] = isAbsolute(raw) ? raw : resolve(base, raw);
    dataDirSource = `CRM_PROXY_DATA_DIR ${where(dataDirFrom)}`;
  }
  if (databaseFrom !== undefined) dataDirSource = `DATABASE_URL ${where(databaseFrom)}`;
  return {
    env: merged,
    files: sources.flatMap((s) => (s.file === null ? [] : [s.file])),
    dataDirSource,
    storeConfigured: dataDirFrom !== undefined || databaseFrom !== undefined,
  };
}

export type ServiceAddress = ReturnType<typeof findService>;

/** The service's base URL and what chose it, and where each sandbox CRM listens. */
export function findService({ config, launcher: { ports } }: StoreLocation, env: Env) {
  const file = config.sandbox ? readSandboxFile(config.dataDir) : null;
  const sandboxUrls = {
    salesforce: file?.sandboxes?.salesforce?.url ?? `http://127.0.0.1:${ports.salesforce}`,
    hubspot: file?.sandboxes?.hubspot?.url ?? `http://127.0.0.1:${ports.hubspot}`,
  };
  const publicVar = `CRM_PROXY_PUBLIC_URL_${config.region.toUpperCase()}`;
  const configured = config.publicUrls[config.region];
  if (configured !== undefined) return { baseUrl: configured, source: publicVar, sandboxUrls };
  if (file !== null && typeof file.base_url === 'string' && file.base_url !== '') {
    return {
      baseUrl: file.base_url.replace(/\/+$/, ''),
      source: `${join(config.dataDir, 'sandbox.json')}, written by the service when it started`,
      sandboxUrls,
    };
  }
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${shown}:${config.port}`,
    source:
      env['PORT'] === undefined
        ? `the default port (no ${publicVar}, no sandbox.json in ${config.dataDir}, no PORT)`
        : 'PORT',
    sandboxUrls,
  };
}
