// Where the configuration comes from, the same for the service and the CLI: the process
// environment, then an env-format file named by CRM_PROXY_CONFIG, then `.env` in the working
// directory. A variable set in an earlier place wins; files only fill in what is unset.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../config/settings.ts';

type Env = Record<string, string | undefined>;

export interface ResolvedEnvironment {
  /** The merged variables, CRM_PROXY_DATA_DIR made absolute. */
  env: Env;
  /** The files read, in order of precedence. */
  files: string[];
  /** Where the data directory came from, for the location line the commands print. */
  dataDirSource: string;
  /** False when nothing named a data directory or database: the default `./data` is in use. */
  storeConfigured: boolean;
}

function readEnvFile(file: string): Env {
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Env;
  } catch (err) {
    throw new ConfigError(`${file} could not be read as KEY=value lines: ${(err as Error).message}`);
  }
}

const set = (env: Env, name: string): boolean => (env[name] ?? '').trim() !== '';

export function resolveEnvironment(env: Env, cwd: string): ResolvedEnvironment {
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
    dataDirSource = `CRM_PROXY_DATA_DIR ${dataDirFrom.file === null ? 'in the environment' : `in ${dataDirFrom.file}`}`;
  }
  if (databaseFrom !== undefined) {
    dataDirSource = `DATABASE_URL ${databaseFrom.file === null ? 'in the environment' : `in ${databaseFrom.file}`}`;
  }
  return {
    env: merged,
    files: sources.flatMap((s) => (s.file === null ? [] : [s.file])),
    dataDirSource,
    storeConfigured: dataDirFrom !== undefined || databaseFrom !== undefined,
  };
}
