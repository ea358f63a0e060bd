// The nouns every layer shares; nothing here imports anything of the service.

/** A CRM's id (`salesforce`); the registry decides which exist, so the store need not change. */
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
  /** The account's own host (Salesforce instance URL); null when the CRM has one host for all. */
  instanceUrl: string | null;
  /** Override of the CRM API host (sandbox connections). */
  apiBaseUrl: string | null;
  sandbox: boolean;
  status: ConnectionStatus;
  /** Never contains a secret. */
  statusReason: string | null;
  /** Incremented on every credential write: the compare-and-set guard for rotated refresh tokens. */
  credentialsVersion: number;
  createdAt: string;
  updatedAt: string;
  /** Salesforce org id, HubSpot portal id; null when not checked. */
  accountId: string | null;
  /** The login host that issued the refresh token; null: the configured one. */
  loginUrl: string | null;
}

/** An API token as listed: never the token itself, never its hash. */
export interface TokenRecord {
  id: string;
  connectionId: string;
  name: string | null;
  /** E.g. `crmp_eu_4fT9xQ2a`: enough to recognise a token, useless to an attacker. */
  prefix: string;
  region: Region;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** Two connections reach the same CRM account when their keys are equal; null: not known. */
export function accountKey(c: Pick<Connection, 'provider' | 'sandbox' | 'accountId'>): string | null {
  return c.accountId === null ? null : `${c.provider}:${c.sandbox}:${c.accountId}`;
}
