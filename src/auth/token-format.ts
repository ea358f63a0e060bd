// API token format: crmp_<region>_<43 random base62 chars = 256 bits><6-char checksum>.
// The region in clear lets a region redirect the other's tokens without a lookup; the checksum tells a
// mistyped or truncated token from an unknown one.
import { hash } from 'node:crypto';
import { base62Fixed, randomBase62 } from '../crypto/random.ts';
import { REGIONS, type Region } from '../domain/connection.ts';

const RANDOM_CHARS = 43;
const CHECKSUM_CHARS = 6;
const DISPLAY_CHARS = 8;
const REGION = `(${REGIONS.join('|')})`;
const TOKEN = new RegExp(`^crmp_${REGION}_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$`);
const DISPLAY_PREFIX = new RegExp(`^crmp_${REGION}_[0-9A-Za-z]{8}$`);

function checksum(head: string): string {
  return base62Fixed(hash('sha256', head, 'buffer').readUInt32BE(0), CHECKSUM_CHARS);
}

export function generateToken(region: Region): { token: string; displayPrefix: string } {
  const head = `crmp_${region}_${randomBase62(RANDOM_CHARS)}`;
  const token = head + checksum(head);
  return { token, displayPrefix: head.slice(0, `crmp_${region}_`.length + DISPLAY_CHARS) };
}

/** The region and listable, non-secret prefix (`crmp_eu_` + 8 characters); null for a malformed token. */
export function parseToken(token: string): { region: Region; displayPrefix: string } | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [, region, random, sum] = m as unknown as [string, string, string, string];
  const head = `crmp_${region}_${random}`;
  if (checksum(head) !== sum) return null;
  return { region: region as Region, displayPrefix: `crmp_${region}_${random.slice(0, DISPLAY_CHARS)}` };
}

export function isDisplayPrefix(s: string): boolean {
  return DISPLAY_PREFIX.test(s);
}

/** SHA-256, unsalted: 256 random bits need no slow hash, and a deterministic one makes the lookup possible. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}
