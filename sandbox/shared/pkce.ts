import { createHash } from 'node:crypto';

/** PKCE S256 (RFC 7636 §4.2): base64url(sha256(verifier)) without padding. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
