import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: a state, a browser binding or a link secret. */
export const newSecret = (): string => randomBytes(32).toString('base64url');

/** Hex SHA-256: what the store keeps instead of a secret (the secrets are random, so no salt is needed). */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The PKCE verifier, from the binding secret and the state: the store keeps neither, so cannot redeem a code. */
export const pkceVerifier = (binding: string, state: string): string =>
  createHmac('sha256', binding).update(`pkce:${state}`).digest('base64url');

export const pkceChallenge = (verifier: string): string =>
  createHash('sha256').update(verifier).digest('base64url');

/** The binding cookie's name: one per flow, so two flows in two tabs of one browser do not collide. */
export const bindingCookieName = (bindingHash: string): string => `crmp_oauth_${bindingHash.slice(0, 16)}`;

/** A Set-Cookie for the callback's path; Lax, as the callback is a navigation from the CRM's site. */
export const oauthCookie = (name: string, value: string, maxAgeSeconds: number, secure = false): string =>
  `${name}=${value}; Path=/oauth; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
