// The nouns every layer shares. The store persists them, providers and operations act on them;
// nothing here imports anything of the service.

/**
 * A CRM's id, as a connection row stores it (`salesforce`, `hubspot`). Which ids exist is decided
 * by the provider registry, not by this type: a provider is added without touching the store.
 */
export type Provider = string;

export const REGIONS = ['eu', 'us'] as const;
export type Region = (typeof REGIONS)[number];

export type ConnectionStatus = 'active' | 'needs_reauth';

/** A stored connection without its secrets: safe to log or list. */
export interface Connection {
  id: string;
  provider: Provider;
  region: Region;
  label: string | null;
  /** The CRM account's own host (a Salesforce org's instance URL); null when the CRM has one host for all. */
  instanceUrl: string | null;
  /** Override of the CRM API host (sandbox connections); null means the provider's default host. */
  apiBaseUrl: string | null;
  sandbox: boolean;
  status: ConnectionStatus;
  /** Why the connection needs re-authorisation (never contains a secret). */
  statusReason: string | null;
  /** Incremented on every credential write: the compare-and-set guard for rotated refresh tokens. */
  credentialsVersion: number;
  createdAt: string;
  updatedAt: string;
  /** The CRM account the credentials reach (Salesforce org id, HubSpot portal id); null when not checked. */
  accountId: string | null;
  /** Salesforce: the login host that issued the refresh token (it is refreshed there); null: the configured one. */
  loginUrl: string | null;
}

/** An API token as listed: never the token itself, never its hash. */
export interface TokenRecord {
  id: string;
  connectionId: string;
  name: string | null;
  /** Display prefix, e.g. `crmp_eu_4fT9xQ2a`: enough to recognise a token, useless to an attacker. */
  prefix: string;
  region: Region;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

/**
 * The one same-account rule: two connections reach the same CRM account when their CRM, their
 * sandbox flag and their account id (Salesforce org, HubSpot portal) are equal. Null: not known.
 */
export function accountKey(c: Pick<Connection, 'provider' | 'sandbox' | 'accountId'>): string | null {
  return c.accountId === null ? null : `${c.provider}:${c.sandbox}:${c.accountId}`;
}
