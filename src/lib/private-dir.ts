import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The data directory holds the SQLite store (sealed credentials, token hashes), the generated
 * development key and sandbox.json (API tokens): owner-only, directory 0700 and files 0600.
 * Modes are fixed rather than merely reported, at every start; a mode that cannot be fixed (the
 * directory belongs to another user) stops the start with a message saying what to do.
 * Windows has no such modes: nothing is checked there.
 */
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

/**
 * Runs `create` (synchronous: nothing else runs meanwhile) with a umask that gives new files no
 * group or other bits, for files whose mode the caller does not choose: SQLite's database, and
 * through it its -wal and -shm files, which SQLite creates with the database file's own mode.
 */
export function withPrivateUmask<T>(create: () => T): T {
  if (!CHECKS_MODES) return create();
  const previous = process.umask(OTHERS);
  try {
    return create();
  } finally {
    process.umask(previous);
  }
}

/**
 * Writes `content` to `file` in a private directory, owner-only. The mode passed to the write only
 * applies to a new file, so an existing one is set to 0600 as well. `flag: 'wx'` fails with EEXIST
 * instead of replacing a file another process created first.
 */
export function writePrivateFile(file: string, content: string, flag: 'w' | 'wx' = 'w'): void {
  ensurePrivateDir(dirname(file));
  writeFileSync(file, content, { mode: FILE_MODE, flag });
  if (CHECKS_MODES) chmodSync(file, FILE_MODE);
}
