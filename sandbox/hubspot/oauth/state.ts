import { keepMissing } from '../../shared/persist.ts';
import { pkceChallenge } from '../../shared/pkce.ts';
import type { AuthResult, HubSpotAuth, HubSpotCredentials } from '../context.ts';
import { DEFAULT_SCOPES, HUBLET, newAccessToken, newAuthorizationCode, newRefreshToken } from './tokens.ts';

export interface OAuthStateOptions {
  portalId: number;
  /** The user who installed the app (and created the private app). */
  userId?: number;
  userEmail?: string;
  hubDomain?: string;
  /** Id of the OAuth app the bootstrap client id belongs to. */
  appId?: number;
  /** Lifetime of OAuth access tokens; HubSpot's is 30 minutes. */
  accessTokenTtlSeconds?: number;
  /** Bootstrap credentials, accepted from the start. */
  credentials: HubSpotCredentials;
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  clock?: () => number;
}

export type TokenKind = 'oauth' | 'private_app';

/** Token-endpoint failure: HubSpot's legacy `status` code plus the RFC 6749 `error`, as HubSpot's token endpoint answers. */
export interface TokenError {
  ok: false;
  status: string;
  error: string;
  message: string;
}

export interface IssuedTokens {
  ok: true;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scopes: string[];
  hubId: number;
  userId: number;
}

export type TokenResult = IssuedTokens | TokenError;

export interface AccessTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  signed_access_token: Record<string, string | number | boolean>;
  hub_id: number;
  app_id: number;
  expires_in: number;
  user_id: number;
  token_type: 'access';
  is_private_distribution: boolean;
}

export interface RefreshTokenInfo {
  token: string;
  user: string;
  hub_domain: string;
  scopes: string[];
  hub_id: number;
  client_id: string;
  user_id: number;
  token_type: 'refresh';
}

interface Grant {
  kind: TokenKind;
  scopes: string[];
  refreshToken: string | null;
  revoked: boolean;
}

interface AccessRecord {
  grant: Grant;
  /** `Infinity` for private-app tokens. */
  expiresAt: number;
}

interface CodeRecord {
  redirectUri: string;
  scopes: string[];
  expiresAt: number;
  /** The PKCE S256 challenge of the authorize request (absent in codes saved before PKCE). */
  codeChallenge?: string | null;
}

const tokenError = (status: string, error: string, message: string): TokenError => ({
  ok: false,
  status,
  error,
  message,
});

// Texts as seen in community captures; only BAD_REFRESH_TOKEN's and BAD_CLIENT_ID's are quoted by several sources.
export const TOKEN_ERRORS = {
  badClientId: tokenError('BAD_CLIENT_ID', 'invalid_request', 'missing or unknown client id'),
  badClientSecret: tokenError('BAD_CLIENT_SECRET', 'invalid_client', 'missing or invalid client secret'),
  badRefreshToken: tokenError(
    'BAD_REFRESH_TOKEN',
    'invalid_grant',
    'refresh token is invalid, expired or revoked',
  ),
  badAuthCode: tokenError('BAD_AUTH_CODE', 'invalid_grant', 'missing or unknown auth code'),
  badRedirectUri: tokenError(
    'BAD_REDIRECT_URI',
    'invalid_request',
    'redirect_uri does not match the one used to get the auth code',
  ),
  badGrantType: tokenError('BAD_GRANT_TYPE', 'unsupported_grant_type', 'missing or unsupported grant_type'),
  // HubSpot documents `code_verifier` on the token endpoint but not its refusal: a bad code's shape.
  missingCodeVerifier: tokenError(
    'BAD_AUTH_CODE',
    'invalid_grant',
    'missing code_verifier: the auth code was issued with a code_challenge',
  ),
  badCodeVerifier: tokenError(
    'BAD_AUTH_CODE',
    'invalid_grant',
    'code_verifier does not match the code_challenge of the auth code',
  ),
} as const;

/** Authorization codes are single use; HubSpot does not document their lifetime, 10 minutes is the common OAuth choice. */
const CODE_TTL_MS = 10 * 60 * 1000;

/** Grants, tokens and authorization codes of one sandbox portal (OAuth app + private app). */
export class OAuthState implements HubSpotAuth {
  readonly portalId: number;
  readonly userId: number;
  readonly userEmail: string;
  readonly hubDomain: string;
  readonly appId: number;
  readonly credentials: HubSpotCredentials;
  readonly accessTokenTtlSeconds: number;
  readonly #clock: () => number;
  #access = new Map<string, AccessRecord>();
  #refresh = new Map<string, Grant>();
  #codes = new Map<string, CodeRecord>();

  constructor(options: OAuthStateOptions) {
    this.portalId = options.portalId;
    this.userId = options.userId ?? 1_000_001;
    this.userEmail = options.userEmail ?? 'admin@crm-proxy.sandbox';
    this.hubDomain = options.hubDomain ?? 'crm-proxy.sandbox';
    this.appId = options.appId ?? 4_000_001;
    this.credentials = { ...options.credentials };
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? 1800;
    this.#clock = options.clock ?? Date.now;
    this.reset();
  }

  /** Back to the bootstrap state: the bootstrap refresh, access and private-app tokens valid, nothing else. */
  reset(): void {
    this.#access.clear();
    this.#refresh.clear();
    this.#codes.clear();
    const grant: Grant = {
      kind: 'oauth',
      scopes: [...DEFAULT_SCOPES],
      refreshToken: this.credentials.refreshToken,
      revoked: false,
    };
    this.#refresh.set(this.credentials.refreshToken, grant);
    this.#access.set(this.credentials.accessToken, { grant, expiresAt: this.#expiry() });
    const privateApp: Grant = {
      kind: 'private_app',
      scopes: [...DEFAULT_SCOPES],
      refreshToken: null,
      revoked: false,
    };
    this.#access.set(this.credentials.privateAppToken, {
      grant: privateApp,
      expiresAt: Number.POSITIVE_INFINITY,
    });
  }

  /** Checks a bearer token (without the `Bearer ` prefix) as the CRM APIs do. */
  verify(token: string | undefined): AuthResult {
    if (token === undefined || token === '') return { ok: false, reason: 'missing' };
    const rec = this.#access.get(token);
    if (rec === undefined || rec.grant.revoked) return { ok: false, reason: 'invalid' };
    if (rec.expiresAt <= this.#clock())
      return { ok: false, reason: 'expired', expiredAt: new Date(rec.expiresAt) };
    return { ok: true, kind: rec.grant.kind, token, scopes: [...rec.grant.scopes] };
  }

  /** Every OAuth access token issued so far expires now; refresh and private-app tokens stay valid. */
  expireAll(): number {
    const now = this.#clock();
    let n = 0;
    for (const rec of this.#access.values()) {
      if (rec.grant.kind !== 'oauth' || rec.expiresAt <= now) continue;
      rec.expiresAt = now;
      n += 1;
    }
    return n;
  }

  /** HubSpot checks the client id before anything else, then the secret. */
  checkClient(clientId: string | undefined, clientSecret: string | undefined): TokenError | null {
    if (clientId !== this.credentials.clientId) return TOKEN_ERRORS.badClientId;
    if (clientSecret !== this.credentials.clientSecret) return TOKEN_ERRORS.badClientSecret;
    return null;
  }

  /** A code bound to the redirect URL and, when the app sent one, to a PKCE S256 challenge. */
  issueCode(redirectUri: string, scopes: string[], codeChallenge: string | null = null): string {
    const code = newAuthorizationCode();
    this.#codes.set(code, { redirectUri, scopes, expiresAt: this.#clock() + CODE_TTL_MS, codeChallenge });
    return code;
  }

  /** Like a redirect URL mismatch, a verifier that does not fit leaves the code usable by its own flow. */
  exchangeCode(
    code: string | undefined,
    redirectUri: string | undefined,
    codeVerifier?: string | undefined,
  ): TokenResult {
    const rec = code === undefined ? undefined : this.#codes.get(code);
    if (code === undefined || rec === undefined || rec.expiresAt <= this.#clock())
      return TOKEN_ERRORS.badAuthCode;
    if (redirectUri !== rec.redirectUri) return TOKEN_ERRORS.badRedirectUri;
    const challenge = rec.codeChallenge ?? null;
    if (challenge !== null && codeVerifier === undefined) return TOKEN_ERRORS.missingCodeVerifier;
    if (challenge !== null && pkceChallenge(codeVerifier ?? '') !== challenge)
      return TOKEN_ERRORS.badCodeVerifier;
    this.#codes.delete(code);
    const grant: Grant = {
      kind: 'oauth',
      scopes: rec.scopes,
      refreshToken: newRefreshToken(),
      revoked: false,
    };
    this.#refresh.set(grant.refreshToken as string, grant);
    return this.#issue(grant);
  }

  /** Refresh tokens do not rotate: the answer carries the same refresh token (HubSpot's observed behaviour). */
  refresh(refreshToken: string | undefined): TokenResult {
    const grant = refreshToken === undefined ? undefined : this.#refresh.get(refreshToken);
    if (grant === undefined || grant.revoked) return TOKEN_ERRORS.badRefreshToken;
    return this.#issue(grant);
  }

  accessTokenInfo(token: string): AccessTokenInfo | null {
    const rec = this.#access.get(token);
    const now = this.#clock();
    if (rec === undefined || rec.grant.revoked || rec.expiresAt <= now) return null;
    const expiresAt = Number.isFinite(rec.expiresAt) ? rec.expiresAt : now + 100 * 365 * 86_400_000;
    return {
      token,
      user: this.userEmail,
      hub_domain: this.hubDomain,
      scopes: [...rec.grant.scopes],
      signed_access_token: {
        expiresAt,
        scopes: Buffer.from(rec.grant.scopes.join(' ')).toString('base64'),
        hubId: this.portalId,
        userId: this.userId,
        appId: this.appId,
        signature: 'sandbox',
        scopeToScopeGroupPks: '',
        newSignature: 'sandbox',
        hublet: HUBLET,
        trialScopes: '',
        trialScopeToScopeGroupPks: '',
        isUserLevel: false,
        isPrivateDistribution: false,
        isServiceAccount: false,
        installingUserId: this.userId,
        appInstallId: String(this.appId),
        audience: 'hubspot',
      },
      hub_id: this.portalId,
      app_id: this.appId,
      expires_in: Math.max(0, Math.floor((expiresAt - now) / 1000)),
      user_id: this.userId,
      token_type: 'access',
      is_private_distribution: false,
    };
  }

  refreshTokenInfo(token: string): RefreshTokenInfo | null {
    const grant = this.#refresh.get(token);
    if (grant === undefined || grant.revoked) return null;
    return {
      token,
      user: this.userEmail,
      hub_domain: this.hubDomain,
      scopes: [...grant.scopes],
      hub_id: this.portalId,
      client_id: this.credentials.clientId,
      user_id: this.userId,
      token_type: 'refresh',
    };
  }

  /** Deleting a refresh token uninstalls the grant: its access tokens stop working too. */
  revokeRefreshToken(token: string): boolean {
    const grant = this.#refresh.get(token);
    if (grant === undefined || grant.revoked) return false;
    grant.revoked = true;
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

  #expiry(): number {
    return this.#clock() + this.accessTokenTtlSeconds * 1000;
  }

  #issue(grant: Grant): IssuedTokens {
    const accessToken = newAccessToken();
    this.#access.set(accessToken, { grant, expiresAt: this.#expiry() });
    return {
      ok: true,
      accessToken,
      refreshToken: grant.refreshToken as string,
      expiresIn: this.accessTokenTtlSeconds,
      scopes: [...grant.scopes],
      hubId: this.portalId,
      userId: this.userId,
    };
  }
}
