import type { Connection, Provider } from '../domain/connection.ts';
import type { TokenGrant } from '../providers/adapter.ts';

export interface OAuthCredentials {
  kind: 'oauth';
  refreshToken: string;
  accessToken?: string;
  /** ISO-8601 instant after which the access token is no longer accepted. */
  accessTokenExpiresAt?: string;
  scope?: string;
}

/** Decrypted CRM credentials of one connection. */
export type Credentials = OAuthCredentials | { kind: 'private_app'; token: string };

/** The credentials a grant gives: its tokens, with the earlier refresh token and scope where it names none. */
export function grantCredentials(
  grant: TokenGrant,
  earlier: { refreshToken: string; scope?: string | undefined },
): OAuthCredentials {
  const scope = grant.scope ?? earlier.scope;
  return {
    kind: 'oauth',
    refreshToken: grant.refreshToken ?? earlier.refreshToken,
    accessToken: grant.accessToken,
    ...(grant.accessTokenExpiresAt === undefined ? {} : { accessTokenExpiresAt: grant.accessTokenExpiresAt }),
    ...(scope === undefined ? {} : { scope }),
  };
}

export interface CreateConnectionInput {
  provider: Provider;
  label?: string | null;
  /** The account's own host (a Salesforce org's instance URL): required or refused by the CRM's profile. */
  instanceUrl?: string | null;
  /** Override of the CRM API host, e.g. a local sandbox URL. */
  apiBaseUrl?: string | null;
  sandbox?: boolean;
  credentials: Credentials;
  /** The CRM account the credentials were checked against (Salesforce org id, HubSpot portal id). */
  accountId?: string | null;
  /** Salesforce: the login host that issued the refresh token. */
  loginUrl?: string | null;
}

export interface ConnectionWithCredentials {
  connection: Connection;
  credentials: Credentials;
  /** Pass back to compareAndSetCredentials. */
  version: number;
}

export type CreateConnectionResult =
  | { ok: true; connection: Connection }
  | { ok: false; code: 'invalid_connection'; message: string };
