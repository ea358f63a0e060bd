import { createHash, createHmac, randomBytes } from 'node:crypto';

/** Client credentials and tokens a sandbox accepts from the start (the connected app's and one granted user's). */
export interface SandboxCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  accessToken: string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Deterministic pseudo-random alphanumerics from a label, so the defaults are the same in every run. */
function derived(label: string, length: number): string {
  let out = '';
  let block = 0;
  while (out.length < length) {
    const digest = createHash('sha256').update(`${label}:${block}`).digest();
    for (const byte of digest) out += ALNUM[byte % ALNUM.length];
    block += 1;
  }
  return out.slice(0, length);
}

function random(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALNUM[byte % ALNUM.length];
  return out;
}

/**
 * Access tokens look like Salesforce session ids: the 15-character org id, `!`, then an opaque
 * part starting with `AQ` (e.g. `00D5g000004Xyz1!AQ4AQ...`). Clients sometimes parse the org id out.
 */
export function accessTokenFor(orgId: string, body: string): string {
  return `${orgId.slice(0, 15)}!AQ${body}`;
}

export const newAccessToken = (orgId: string): string => accessTokenFor(orgId, random(94));
/** Refresh tokens are opaque; real ones start with `5Aep861`. */
export const newRefreshToken = (): string => `5Aep861${random(80)}`;
export const newAuthorizationCode = (): string => `aPrx${random(60)}`;

/** The bootstrap credentials of an org, derived from its id (same org id, same defaults). */
export function defaultCredentials(orgId: string): SandboxCredentials {
  return {
    clientId: `3MVG9${derived(`client:${orgId}`, 80)}`,
    clientSecret: derived(`secret:${orgId}`, 64).toUpperCase(),
    refreshToken: `5Aep861${derived(`refresh:${orgId}`, 80)}`,
    accessToken: accessTokenFor(orgId, derived(`access:${orgId}`, 94)),
  };
}

/**
 * `signature` of a token response: base64 HMAC-SHA256 over the identity URL followed by
 * `issued_at`, keyed by the consumer secret ("Base64-encoded HMAC-SHA256 signature signed with the
 * client_secret containing the concatenated ID and issued_at value", OAuth endpoint docs). Clients
 * use it to check that the identity URL was not tampered with.
 */
export function tokenSignature(clientSecret: string, idUrl: string, issuedAt: string): string {
  return createHmac('sha256', clientSecret)
    .update(idUrl + issuedAt)
    .digest('base64');
}
