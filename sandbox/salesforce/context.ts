import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { CallAccounting, Realism, RealismConfig } from '../shared/index.ts';
import { OAuthState, type SandboxCredentials } from './oauth/index.ts';
import { Org } from './org/index.ts';

export interface StartSalesforceSandboxOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  realism?: Partial<RealismConfig>;
  /** Lifetime of access tokens (default 7200 s, Salesforce's default session timeout). */
  accessTokenTtlSeconds?: number;
  /** Refresh Token Rotation (each refresh answers a new refresh token). */
  rotateRefreshTokens?: boolean;
  /** Bootstrap client id/secret and tokens, so a restarted sandbox accepts what a store kept. */
  credentials?: Partial<SandboxCredentials>;
  logger?: boolean;
  /** JSON file of describe answers from a real org (array, or `{sobjects: [...]}`): adds or replaces objects. */
  schemaFile?: string;
  /** Seed the standard records (default true). */
  seed?: boolean;
  /** State and Country/Territory Picklists: Account's `BillingCountryCode`/`BillingStateCode` (and Shipping) picklists (default true). */
  addressPicklists?: boolean;
  dailyApiRequests?: number;
  /** Daily API requests already used at start and after a reset (an org near its limit). */
  apiRequestsUsed?: number;
  dailyBulkApiBatches?: number;
  concurrentLongRunningLimit?: number;
  longRunningThresholdMs?: number;
  /** Order of rows in Bulk 2.0 result files: upload order (default) or seeded shuffle. */
  bulkResultOrder?: 'input' | 'shuffled';
  /** Keep the org (data and schema) in this directory across restarts (`--persist`); off by default. */
  persistDir?: string;
  /** Milliseconds since the epoch for token and code expiry (default `Date.now`): tests share one clock with the service. */
  clock?: () => number;
}

/** What every route module of the Salesforce sandbox gets. */
export interface SalesforceContext {
  org: Org;
  oauth: OAuthState;
  realism: Realism;
  accounting: CallAccounting;
  options: StartSalesforceSandboxOptions;
  /** The sandbox's base URL once listening (login host and instance URL at once). */
  baseUrl(): string;
  /** Registers state to clear on `POST /__sandbox/reset`. */
  onReset(fn: () => void): void;
  /** Back to the seeded state: org, tokens and every registered reset. */
  reset(): void;
}

export function createContext(
  options: StartSalesforceSandboxOptions,
  realism: Realism,
  accounting: CallAccounting,
): SalesforceContext & { setBaseUrl(url: string): void } {
  const org = new Org({
    ...(options.schemaFile !== undefined ? { schemaFile: options.schemaFile } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.addressPicklists !== undefined ? { addressPicklists: options.addressPicklists } : {}),
  });
  const oauth = new OAuthState({
    orgId: org.orgId,
    userId: org.adminUserId,
    ...(options.accessTokenTtlSeconds !== undefined
      ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds }
      : {}),
    ...(options.rotateRefreshTokens !== undefined
      ? { rotateRefreshTokens: options.rotateRefreshTokens }
      : {}),
    ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    user: {
      username: 'sandbox.admin@crm-proxy.sandbox',
      email: 'sandbox.admin@crm-proxy.sandbox',
      firstName: 'Sandbox',
      lastName: 'Admin',
    },
  });
  const resets: Array<() => void> = [];
  let url = '';
  return {
    org,
    oauth,
    realism,
    accounting,
    options,
    baseUrl: () => url,
    setBaseUrl: (u: string) => {
      url = u;
    },
    onReset: (fn) => {
      resets.push(fn);
    },
    reset: () => {
      org.reset();
      oauth.reset();
      for (const fn of resets) fn();
    },
  };
}

/**
 * Marks the subrequests a composite request runs through the app itself: they are part of one API
 * call (the composite's), so the daily allowance counts them once. A per-process secret, so a
 * caller cannot set it.
 */
export const SUBREQUEST_HEADER = 'x-sandbox-subrequest';
export const SUBREQUEST_SECRET = randomBytes(16).toString('hex');

export function isSubrequest(request: { headers: Record<string, unknown> }): boolean {
  return request.headers[SUBREQUEST_HEADER] === SUBREQUEST_SECRET;
}

const lockFaults = new WeakSet<FastifyRequest>();

/** Marks a call whose injected fault is a row lock that its handler reports per record. */
export function markLockFault(request: FastifyRequest): void {
  lockFaults.add(request);
}

/** True when the injected fault of this call is `lock` and the handler must fail its records with UNABLE_TO_LOCK_ROW. */
export function lockFaulted(request: FastifyRequest): boolean {
  return lockFaults.has(request);
}
