import type { Connection, TokenRecord } from '../domain/connection.ts';

export type VerifyFailureCode =
  | 'missing_token'
  | 'malformed_token'
  | 'unknown_token'
  | 'revoked_token'
  | 'expired_token'
  | 'wrong_region';

export type VerifyResult =
  | { ok: true; token: TokenRecord; connection: Connection }
  | { ok: false; code: VerifyFailureCode; message: string };

export interface CreateTokenInput {
  connectionId: string;
  name?: string | null;
  expiresAt?: Date | null;
}

export type CreateTokenResult =
  | { ok: true; token: string; record: TokenRecord }
  | { ok: false; code: 'connection_not_found'; message: string };

export type RevokeResult =
  | { ok: true; record: TokenRecord }
  | { ok: false; code: 'not_found' | 'ambiguous' | 'already_revoked'; message: string };
