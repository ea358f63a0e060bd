import type { Credentials } from './types.ts';

/** Checks a decrypted or user-supplied value; returns an error message naming the bad field, or null. */
export function credentialsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'credentials must be an object';
  const c = value as Record<string, unknown>;
  const optionalString = (k: string) => c[k] === undefined || typeof c[k] === 'string';
  if (c['kind'] === 'oauth') {
    if (typeof c['refreshToken'] !== 'string' || c['refreshToken'] === '')
      return 'credentials.refreshToken is required';
    if (!optionalString('accessToken') || !optionalString('scope'))
      return 'credentials.accessToken/scope must be strings';
    const exp = c['accessTokenExpiresAt'];
    if (exp !== undefined && (typeof exp !== 'string' || Number.isNaN(Date.parse(exp)))) {
      return 'credentials.accessTokenExpiresAt must be an ISO-8601 timestamp';
    }
    return null;
  }
  if (c['kind'] === 'private_app') {
    return typeof c['token'] === 'string' && c['token'] !== '' ? null : 'credentials.token is required';
  }
  return 'credentials.kind must be "oauth" or "private_app"';
}

/** Keeps only the known fields, so nothing unexpected is ever sealed or returned. */
export function normaliseCredentials(c: Credentials): Credentials {
  if (c.kind === 'private_app') return { kind: 'private_app', token: c.token };
  return {
    kind: 'oauth',
    refreshToken: c.refreshToken,
    ...(c.accessToken !== undefined ? { accessToken: c.accessToken } : {}),
    ...(c.accessTokenExpiresAt !== undefined ? { accessTokenExpiresAt: c.accessTokenExpiresAt } : {}),
    ...(c.scope !== undefined ? { scope: c.scope } : {}),
  };
}
