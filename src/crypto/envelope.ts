// AES-256-GCM envelope: each ciphertext carries the id of the key that sealed it, and associated data
// binds it to its owner (a connection id), so a ciphertext copied onto another row fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../store/types.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

export class CryptoError extends Error {
  override name = 'CryptoError';
}

export interface Keyring {
  activeKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

export function createKeyring(keys: { id: string; key: Buffer }[], activeKeyId?: string): Keyring {
  const map = new Map<string, Buffer>();
  for (const k of keys) {
    if (k.key.length !== 32) throw new CryptoError(`key ${k.id} must be 32 bytes`);
    map.set(k.id, k.key);
  }
  const active = activeKeyId ?? keys[0]?.id;
  if (active === undefined || !map.has(active))
    throw new CryptoError('the active key id is not in the keyring');
  return { activeKeyId: active, keys: map };
}

export function seal(keyring: Keyring, plaintext: string, associatedData: string): SealedSecret {
  const key = keyring.keys.get(keyring.activeKeyId)!;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return {
    keyId: keyring.activeKeyId,
    ciphertext: `${FORMAT}.${Buffer.concat([iv, tag, body]).toString('base64')}`,
  };
}

export function open(keyring: Keyring, sealed: SealedSecret, associatedData: string): string {
  const key = keyring.keys.get(sealed.keyId);
  if (!key) {
    throw new CryptoError(
      `credentials are sealed with key "${sealed.keyId}", which is not in CRM_PROXY_ENCRYPTION_KEYS`,
    );
  }
  const [format, b64] = sealed.ciphertext.split('.', 2);
  if (format !== FORMAT || b64 === undefined) throw new CryptoError('unrecognised ciphertext format');
  const raw = Buffer.from(b64, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new CryptoError('ciphertext is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    // Wrong key material, tampering, or a ciphertext moved to another row: all look the same to GCM.
    throw new CryptoError(`credentials failed authentication under key "${sealed.keyId}"`);
  }
}

/** True when the secret is sealed under a key other than the active one (a candidate for rotate-key). */
export function needsReseal(keyring: Keyring, sealed: SealedSecret): boolean {
  return sealed.keyId !== keyring.activeKeyId;
}
