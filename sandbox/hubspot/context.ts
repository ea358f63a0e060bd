import type { CallAccounting, Realism, RealismConfig } from '../shared/index.ts';
import type { Portal } from './model/portal.ts';
import type { RateLimitOptions } from './ratelimit/limiter.ts';

/** Credentials the sandbox accepts from the start (override them to survive a restart). */
export interface HubSpotCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  accessToken: string;
  /** Static private-app token (`pat-na1-…`), never expires on a timer. */
  privateAppToken: string;
}

export interface HubSpotSandboxOptions {
  port?: number;
  host?: string;
  realism?: Partial<RealismConfig>;
  /** Lifetime of issued OAuth access tokens (HubSpot: 1800 s). */
  accessTokenTtlSeconds?: number;
  credentials?: Partial<HubSpotCredentials>;
  logger?: boolean;
  /** HubSpot account id (default 7654321). */
  portalId?: number;
  /** Seed records (default true); the standard types, properties, owners and pipelines are always there. */
  seed?: boolean;
  /** HubSpot's API limits (10-second window, daily allowance, search per second). */
  rateLimit?: RateLimitOptions;
  /**
   * Order of `results` and `errors` in batch create/update/upsert answers: as the inputs came
   * (default) or a seeded shuffle. HubSpot documents no order (a captured 207 listed ids unsorted).
   */
  batchResultOrder?: 'input' | 'shuffled';
  /** Keep the portal (records, schema, associations, pipelines) and OAuth grants in this directory across restarts. */
  persistDir?: string;
  /**
   * Milliseconds since the epoch for token expiry, the rate-limit windows and the daily allowance,
   * and the portal's timestamps (default `Date.now`): tests share one clock with the service.
   */
  clock?: () => number;
}

export const DEFAULT_CREDENTIALS: HubSpotCredentials = {
  clientId: '5f0c2a9e-4d1b-4c8a-9e3f-7b6a1d2c3e4f',
  clientSecret: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  refreshToken: 'na1-7c1e-4b2a-9f3d-5e6a7b8c9d0e',
  accessToken: 'CKSandboxAccessToken.na1.a1b2c3d4e5f60718293a4b5c6d7e8f90',
  privateAppToken: 'pat-na1-0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
};

export function resolveCredentials(options: HubSpotSandboxOptions): HubSpotCredentials {
  return { ...DEFAULT_CREDENTIALS, ...options.credentials };
}

export type AuthResult =
  | { ok: true; kind: 'oauth' | 'private_app'; token: string; scopes: string[] }
  | { ok: false; reason: 'missing' | 'invalid' }
  | { ok: false; reason: 'expired'; expiredAt: Date };

/** What the app needs from the OAuth module: token checks and the control API's token actions. */
export interface HubSpotAuth {
  /** Checks a bearer token (without the `Bearer ` prefix). */
  verify(token: string | undefined): AuthResult;
  /** Every access token issued so far expires now (`POST /__sandbox/tokens/expire`). */
  expireAll(): void;
  /** Back to the bootstrap credentials (`POST /__sandbox/reset`). */
  reset(): void;
}

/** Services every route of the HubSpot sandbox reaches through. */
export interface HubSpotContext {
  portal: Portal;
  oauth: HubSpotAuth;
  realism: Realism;
  accounting: CallAccounting;
  options: HubSpotSandboxOptions;
  credentials: HubSpotCredentials;
  /** Base URL the server listens on (for `paging.next.link`); set once listening. */
  baseUrl(): string;
}

/**
 * Minimal token check used until the OAuth module provides one: accepts the bootstrap access
 * token (until expired through the control API) and the private-app token.
 */
export function createStaticAuth(credentials: HubSpotCredentials): HubSpotAuth {
  let expiredAt: Date | null = null;
  return {
    verify(token) {
      if (token === undefined || token === '') return { ok: false, reason: 'missing' };
      if (token === credentials.privateAppToken) return { ok: true, kind: 'private_app', token, scopes: [] };
      if (token !== credentials.accessToken) return { ok: false, reason: 'invalid' };
      if (expiredAt !== null) return { ok: false, reason: 'expired', expiredAt };
      return { ok: true, kind: 'oauth', token, scopes: [] };
    },
    expireAll() {
      expiredAt = new Date();
    },
    reset() {
      expiredAt = null;
    },
  };
}
