// Signing keys (console cookies) derived from the encryption keys, the active key's first, so every
// instance derives the same ones and a value signed before a key rotation still checks.
import { hkdfSync } from 'node:crypto';
import type { Keyring } from './envelope.ts';

export function signingKeys(keyring: Keyring, purpose: string): Buffer[] {
  const ids = [keyring.activeKeyId, ...[...keyring.keys.keys()].filter((id) => id !== keyring.activeKeyId)];
  return ids.map((id) =>
    Buffer.from(hkdfSync('sha256', keyring.keys.get(id)!, '', `crm-proxy ${purpose}`, 32)),
  );
}
