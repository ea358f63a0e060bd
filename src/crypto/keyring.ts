// Where the encryption keys come from: the environment, or — in sandbox mode only, when none is
// configured — a key generated once into <dataDir>/encryption-key so a newcomer's store survives restarts.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, ConfigError } from '../config/index.ts';
import { parseEncryptionKeys } from '../config/service.ts';
import { ensurePrivateDir, writePrivateFile } from '../lib/private-dir.ts';
import { createKeyring, type Keyring } from './envelope.ts';

export const GENERATED_KEY_FILE = 'encryption-key';
const GENERATED_KEY_ID = 'local';

export interface KeyringLog {
  info(msg: string): void;
  warn(msg: string): void;
}

export function loadKeyring(config: Config, log: KeyringLog): Keyring {
  const { keys, activeKeyId } = config.encryption;
  if (keys.length > 0) return createKeyring(keys, activeKeyId);
  if (config.production) {
    throw new ConfigError(
      'CRM_PROXY_ENCRYPTION_KEYS is required when NODE_ENV=production (e.g. CRM_PROXY_ENCRYPTION_KEYS="k1:$(openssl rand -base64 32)")',
    );
  }
  if (!config.sandbox) {
    throw new ConfigError('CRM_PROXY_ENCRYPTION_KEYS is required (a key is generated only in sandbox mode)');
  }
  const file = join(config.dataDir, GENERATED_KEY_FILE);
  // Owner-only directory and files, fixed if they were not (see lib/private-dir.ts).
  ensurePrivateDir(config.dataDir);
  try {
    // 'wx': a key another process created first is used, never overwritten.
    writePrivateFile(file, `${GENERATED_KEY_ID}:${randomBytes(32).toString('base64')}\n`, 'wx');
    log.warn(
      `no CRM_PROXY_ENCRYPTION_KEYS set: generated a development encryption key in ${file} (sandbox mode only; set CRM_PROXY_ENCRYPTION_KEYS in production)`,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const raw = readFileSync(file, 'utf8');
  const problems: string[] = [];
  const parsed = parseEncryptionKeys(raw.trim(), problems, file);
  if (problems.length > 0) throw new ConfigError(...problems);
  return createKeyring(parsed, parsed[0]?.id);
}
