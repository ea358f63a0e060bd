// Operator passwords: scrypt from node:crypto (no native add-on), parameters stored beside the hash
// so they can be raised later.
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

const scryptAsync = promisify<string, Buffer, number, ScryptOptions, Buffer>(scrypt);

function derive(password: string, salt: Buffer, params: typeof PARAMS): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return scryptAsync(password.normalize('NFKC'), salt, KEY_LENGTH, options);
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/** Compared against when the email is unknown, so both cases cost the same; made on first use. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

export const MIN_PASSWORD_LENGTH = 12;

let common: Promise<ReadonlySet<string>> | undefined;

/** The common passwords of @zxcvbn-ts/language-common, lower-cased; loaded on first use. */
function commonPasswords(): Promise<ReadonlySet<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set((dictionary['passwords-common'] ?? []).map((p) => String(p).toLowerCase())),
  );
  return common;
}

/** What is wrong with a new password (NFKC-normalised as for hashing), or null when it may be used. */
export async function passwordProblem(password: string): Promise<string | null> {
  const normalized = password.normalize('NFKC');
  const chars = [...normalized];
  if (chars.length < MIN_PASSWORD_LENGTH)
    return `the password must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (normalized.trim() === '') return 'the password must not be whitespace only';
  if (new Set(chars).size === 1) return 'the password must not be one character repeated';
  const list = await commonPasswords();
  const lower = normalized.trim().toLowerCase();
  if (list.has(lower) || list.has(lower.replace(/\s+/g, '')))
    return 'the password is one of the most common passwords; choose another';
  return null;
}
