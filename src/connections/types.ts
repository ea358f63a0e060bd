import type { Connection, Provider } from '../domain/connection.ts';

/** Decrypted CRM credentials of one connection. */
export type Credentials =
  | {
      kind: 'oauth';
      refreshToken: string;
      accessToken?: string;
      /** ISO-8601 instant after which the access token is no longer accepted. */
      accessTokenExpiresAt?: string;
      scope?: string;
    }
  | { kind: 'private_app'; token: string };

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
