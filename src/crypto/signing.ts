// Keys for what the service signs and later checks itself (console cookies), derived from the
// encryption keys (never the keys themselves): every instance that shares the keyring derives the
// same ones, the active key's first, so a value signed before a key rotation still checks.
import { hkdfSync } from 'node:crypto';
import type { Keyring } from './envelope.ts';

export function signingKeys(keyring: Keyring, purpose: string): Buffer[] {
  const ids = [keyring.activeKeyId, ...[...keyring.keys.keys()].filter((id) => id !== keyring.activeKeyId)];
  return ids.map((id) =>
    Buffer.from(hkdfSync('sha256', keyring.keys.get(id) ?? Buffer.alloc(32), '', `crm-proxy ${purpose}`, 32)),
  );
}
