import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The data directory holds secrets: 0700 and files 0600, fixed at every start (or the start stops
// saying what to do). Windows has no such modes.
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const OTHERS = 0o077;
const CHECKS_MODES = process.platform !== 'win32';

export class PrivateDirError extends Error {
  override name = 'PrivateDirError';
}

function fix(path: string, mode: number, what: string): void {
  const current = statSync(path).mode & 0o777;
  if ((current & OTHERS) === 0) return;
  try {
    chmodSync(path, mode);
  } catch (err) {
    throw new PrivateDirError(
      `${what} ${path} is open to other users (mode ${current.toString(8)}) and its mode could not be changed to ${mode.toString(8)} (${(err as NodeJS.ErrnoException).code ?? 'error'}). Run "chmod ${mode.toString(8)} ${path}" as its owner, or point CRM_PROXY_DATA_DIR at a directory this user owns.`,
    );
  }
}

/** Creates `dir` owner-only if missing, and makes it and every file directly in it owner-only. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if (!CHECKS_MODES) return;
  fix(dir, DIR_MODE, 'The data directory');
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) fix(join(dir, entry.name), FILE_MODE, 'The file');
  }
}

/** Runs `create` under a umask without group and other bits (SQLite's files, whose modes it chooses). */
export function withPrivateUmask<T>(create: () => T): T {
  if (!CHECKS_MODES) return create();
  const previous = process.umask(OTHERS);
  try {
    return create();
  } finally {
    process.umask(previous);
  }
}

/** Writes `file` owner-only (chmod too: the write's mode applies only to a new file); `wx` never replaces. */
export function writePrivateFile(file: string, content: string, flag: 'w' | 'wx' = 'w'): void {
  ensurePrivateDir(dirname(file));
  writeFileSync(file, content, { mode: FILE_MODE, flag });
  if (CHECKS_MODES) chmodSync(file, FILE_MODE);
}
