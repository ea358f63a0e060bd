import { keepMissing } from '../../shared/persist.ts';
import { pkceChallenge } from '../../shared/pkce.ts';
import {
  defaultCredentials,
  newAccessToken,
  newAuthorizationCode,
  newRefreshToken,
  type SandboxCredentials,
} from './tokens.ts';

export interface OAuthStateOptions {
  orgId: string;
  /** The user every grant runs as (the org's administrator in the seed). */
  userId: string;
  /** Lifetime of every access token (Salesforce's session timeout; default 2 h). Absolute, not sliding. */
  accessTokenTtlSeconds?: number;
  /** Refresh Token Rotation: each refresh answers a new refresh token and retires the old one. */
  rotateRefreshTokens?: boolean;
  /** Overrides of the bootstrap credentials (so a restarted sandbox accepts a stored refresh token). */
  credentials?: Partial<SandboxCredentials>;
  /** Callback URLs of the connected app; any http(s) URL when absent. */
  redirectUris?: string[];
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  clock?: () => number;
  /** What the identity URL and userinfo say about the user. */
  user?: Partial<SandboxUserProfile>;
  /** The user's password for the username-password flow and SOAP `login()` (default `sandbox-password`). */
  password?: string;
}

export interface SandboxUserProfile {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  timezone: string;
  language: string;
  locale: string;
}

const DEFAULT_USER: SandboxUserProfile = {
  username: 'admin@crm-proxy.sandbox',
  email: 'admin@crm-proxy.sandbox',
  firstName: 'Sandbox',
  lastName: 'Admin',
  timezone: 'Europe/London',
  language: 'en_US',
  locale: 'en_GB',
};

/** The token endpoint's error answer: `{"error": ..., "error_description": ...}` with HTTP 400. */
export interface OAuthError {
  ok: false;
  status: number;
  error: string;
  description: string;
}

export interface IssuedTokens {
  ok: true;
  accessToken: string;
  refreshToken?: string;
  issuedAt: string;
  scope: string;
  userId: string;
}

export type TokenResult = IssuedTokens | OAuthError;
export type VerifyResult = { ok: true; userId: string; orgId: string } | { ok: false };

interface Grant {
  userId: string;
  scope: string;
  /** Current refresh token; null for grants that never get one (client credentials, no refresh scope). */
  refreshToken: string | null;
  revoked: boolean;
  accessTokens: Set<string>;
}

interface AccessRecord {
  grant: Grant;
  expiresAt: number;
  revoked: boolean;
}

interface CodeRecord {
  redirectUri: string;
  scope: string;
  codeChallenge: string | null;
  expiresAt: number;
}

export interface AuthorizeRequest {
  redirectUri: string;
  scope: string;
  codeChallenge: string | null;
}

const oauthError = (error: string, description: string, status = 400): OAuthError => ({
  ok: false,
  status,
  error,
  description,
});

/** Salesforce's answer for any unknown, expired, revoked or rotated-out refresh token. */
const EXPIRED_TOKEN = oauthError('invalid_grant', 'expired access/refresh token');
/** Authorization codes are single use and live 15 minutes (web server flow docs). */
const CODE_TTL_MS = 15 * 60 * 1000;
const DEFAULT_SCOPE = 'refresh_token api';

/** Grants, tokens and authorization codes of one sandbox org. */
export class OAuthState {
  readonly orgId: string;
  readonly userId: string;
  readonly credentials: SandboxCredentials;
  readonly rotateRefreshTokens: boolean;
  readonly redirectUris: string[] | null;
  readonly user: SandboxUserProfile;
  readonly #password: string;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  #access = new Map<string, AccessRecord>();
  /** Current and rotated-out refresh tokens, each pointing to its grant. */
  #refresh = new Map<string, Grant>();
  #codes = new Map<string, CodeRecord>();

  constructor(options: OAuthStateOptions) {
    this.orgId = options.orgId;
    this.userId = options.userId;
    this.credentials = { ...defaultCredentials(options.orgId), ...options.credentials };
    this.rotateRefreshTokens = options.rotateRefreshTokens ?? false;
    this.redirectUris = options.redirectUris ?? null;
    this.user = { ...DEFAULT_USER, ...options.user };
    this.#password = options.password ?? 'sandbox-password';
    this.#ttlMs = (options.accessTokenTtlSeconds ?? 7200) * 1000;
    this.#clock = options.clock ?? Date.now;
    this.reset();
  }

  /** Back to the bootstrap grant: its refresh token and access token valid, everything else forgotten. */
  reset(): void {
    this.#access.clear();
    this.#refresh.clear();
    this.#codes.clear();
    const grant = this.#newGrant(DEFAULT_SCOPE, this.credentials.refreshToken);
    this.#addAccessToken(grant, this.credentials.accessToken);
  }

  verifyAccessToken(token: string): VerifyResult {
    const rec = this.#access.get(token);
    if (rec === undefined || rec.revoked || rec.grant.revoked || rec.expiresAt <= this.#clock())
      return { ok: false };
    return { ok: true, userId: rec.grant.userId, orgId: this.orgId };
  }

  /** Every access token issued so far expires now (refresh tokens stay valid). */
  expireAll(): number {
    const now = this.#clock();
    let n = 0;
    for (const rec of this.#access.values()) {
      if (rec.expiresAt > now) n += 1;
      rec.expiresAt = Math.min(rec.expiresAt, now);
    }
    return n;
  }

  /** `null` when the client is the connected app; its error otherwise. A secret of `undefined` is not checked. */
  checkClient(
    clientId: string | undefined,
    clientSecret: string | undefined,
    secretRequired: boolean,
  ): OAuthError | null {
    if (clientId !== this.credentials.clientId)
      return oauthError('invalid_client_id', 'client identifier invalid');
    if (clientSecret === undefined ? secretRequired : clientSecret !== this.credentials.clientSecret) {
      return oauthError('invalid_client', 'invalid client credentials');
    }
    return null;
  }

  redirectUriAllowed(uri: string): boolean {
    if (this.redirectUris !== null) return this.redirectUris.includes(uri);
    return /^https?:\/\//i.test(uri);
  }

  issueCode(req: AuthorizeRequest): string {
    const code = newAuthorizationCode();
    this.#codes.set(code, { ...req, expiresAt: this.#clock() + CODE_TTL_MS });
    return code;
  }

  exchangeCode(code: string, redirectUri: string | undefined, codeVerifier: string | undefined): TokenResult {
    const rec = this.#codes.get(code);
    if (rec === undefined) return oauthError('invalid_grant', 'invalid authorization code');
    this.#codes.delete(code);
    if (rec.expiresAt <= this.#clock()) return oauthError('invalid_grant', 'expired authorization code');
    if (redirectUri !== rec.redirectUri) {
      return oauthError('redirect_uri_mismatch', 'redirect_uri must match configuration');
    }
    if (rec.codeChallenge !== null) {
      if (codeVerifier === undefined) return oauthError('invalid_grant', 'invalid code verifier');
      if (pkceChallenge(codeVerifier) !== rec.codeChallenge)
        return oauthError('invalid_request', 'invalid code verifier');
    }
    const wantsRefresh = /\b(refresh_token|offline_access)\b/.test(rec.scope);
    const grant = this.#newGrant(rec.scope, wantsRefresh ? newRefreshToken() : null);
    return this.#issue(grant, grant.refreshToken ?? undefined);
  }

  refresh(refreshToken: string): TokenResult {
    const grant = this.#refresh.get(refreshToken);
    if (grant === undefined || grant.revoked) return EXPIRED_TOKEN;
    if (grant.refreshToken !== refreshToken) {
      // A rotated-out token came back: someone holds a copy, so the whole grant is revoked (as Salesforce does).
      this.#revokeGrant(grant);
      return EXPIRED_TOKEN;
    }
    if (!this.rotateRefreshTokens) return this.#issue(grant, undefined);
    const next = newRefreshToken();
    grant.refreshToken = next;
    this.#refresh.set(next, grant);
    return this.#issue(grant, next);
  }

  /**
   * Username-password flow (and SOAP `login()`): the user's username and password (Salesforce
   * appends the security token to the password; the sandbox has none); never a refresh token.
   */
  passwordLogin(username: string | undefined, password: string | undefined): TokenResult {
    if (username?.toLowerCase() !== this.user.username.toLowerCase() || password !== this.#password) {
      return oauthError('invalid_grant', 'authentication failure');
    }
    return this.#issue(this.#newGrant('api', null), undefined);
  }

  /** Client credentials flow: runs as the org's user; never a refresh token. */
  clientCredentials(): TokenResult {
    return this.#issue(this.#newGrant('api', null), undefined);
  }

  /** Revokes an access token (that token only) or a refresh token (its whole grant). False when unknown. */
  revoke(token: string): boolean {
    const grant = this.#refresh.get(token);
    if (grant !== undefined) {
      if (grant.revoked) return false;
      this.#revokeGrant(grant);
      return true;
    }
    const rec = this.#access.get(token);
    if (rec === undefined || rec.revoked || rec.grant.revoked) return false;
    rec.revoked = true;
    return true;
  }

  /** Grants, tokens and codes, for the sandbox's persistence (`sandbox/shared/persist.ts`). */
  exportState() {
    return { access: this.#access, refresh: this.#refresh, codes: this.#codes };
  }

  /** Takes a saved state; the bootstrap credentials of this start stay valid beside it. */
  importState(state: unknown): void {
    const saved = state as ReturnType<OAuthState['exportState']>;
    this.#access = keepMissing(saved.access, this.#access);
    this.#refresh = keepMissing(saved.refresh, this.#refresh);
    this.#codes = saved.codes;
  }

  #newGrant(scope: string, refreshToken: string | null): Grant {
    const grant: Grant = {
      userId: this.userId,
      scope,
      refreshToken,
      revoked: false,
      accessTokens: new Set(),
    };
    if (refreshToken !== null) this.#refresh.set(refreshToken, grant);
    return grant;
  }

  #addAccessToken(grant: Grant, token: string): void {
    grant.accessTokens.add(token);
    this.#access.set(token, { grant, expiresAt: this.#clock() + this.#ttlMs, revoked: false });
  }

  #issue(grant: Grant, refreshToken: string | undefined): IssuedTokens {
    const accessToken = newAccessToken(this.orgId);
    this.#addAccessToken(grant, accessToken);
    return {
      ok: true,
      accessToken,
      ...(refreshToken !== undefined ? { refreshToken } : {}),
      issuedAt: String(this.#clock()),
      scope: grant.scope,
      userId: grant.userId,
    };
  }

  #revokeGrant(grant: Grant): void {
    grant.revoked = true;
    for (const token of grant.accessTokens) {
      const rec = this.#access.get(token);
      if (rec !== undefined) rec.revoked = true;
    }
  }
}
