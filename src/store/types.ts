// Row shapes and repository contracts shared by both dialects (SQLite and PostgreSQL).
// Timestamps are ISO-8601 UTC strings in fixed width, so they compare correctly as text on both.

import type { Connection, ConnectionStatus, Provider, Region, TokenRecord } from '../domain/connection.ts';

// The shared nouns live in the domain module; re-exported for the store's callers.
export type { Connection, ConnectionStatus, Provider, Region, TokenRecord } from '../domain/connection.ts';
export { REGIONS } from '../domain/connection.ts';
export * from './durable-types.ts';

import type { IdempotencyRepository, JobsRepository } from './durable-types.ts';

/** The encrypted credentials as stored: ciphertext beside the id of the key that sealed it. */
export interface SealedSecret {
  keyId: string;
  ciphertext: string;
}

export interface ConnectionWithSecret extends Connection {
  credentials: SealedSecret;
}

export interface NewConnectionRow {
  id: string;
  provider: Provider;
  region: Region;
  label: string | null;
  instanceUrl: string | null;
  apiBaseUrl: string | null;
  sandbox: boolean;
  credentials: SealedSecret;
  now: string;
}

export interface ConnectionsRepository {
  insert(row: NewConnectionRow): Promise<Connection>;
  find(id: string): Promise<ConnectionWithSecret | null>;
  list(): Promise<Connection[]>;
  /** Deletes the connection and its API tokens; false when it did not exist. */
  remove(id: string): Promise<boolean>;
  /** Writes new credentials only if the stored version is still `expectedVersion`; bumps the version. */
  compareAndSetCredentials(
    id: string,
    expectedVersion: number,
    sealed: SealedSecret,
    now: string,
  ): Promise<boolean>;
  /** Re-seals the same plaintext under another key; the version is left alone (the secret did not change). */
  replaceSealed(id: string, expectedVersion: number, sealed: SealedSecret, now: string): Promise<boolean>;
  setStatus(id: string, status: ConnectionStatus, reason: string | null, now: string): Promise<boolean>;
}

export interface TokenRecordWithHash extends TokenRecord {
  hash: string;
}

export interface NewTokenRow {
  id: string;
  connectionId: string;
  name: string | null;
  prefix: string;
  hash: string;
  region: Region;
  expiresAt: string | null;
  now: string;
}

export interface TokensRepository {
  insert(row: NewTokenRow): Promise<TokenRecord>;
  findByPrefix(prefix: string): Promise<TokenRecordWithHash[]>;
  findById(id: string): Promise<TokenRecord | null>;
  list(connectionId?: string): Promise<TokenRecord[]>;
  /** Sets revoked_at if not set yet; false when the token does not exist or was already revoked. */
  revoke(id: string, now: string): Promise<boolean>;
  touch(id: string, now: string): Promise<void>;
}

export interface LockOptions {
  /** How long to wait for the lock before giving up with LockTimeoutError (default: ttlMs). */
  waitMs?: number;
}

export interface LocksRepository {
  /**
   * Runs `fn` while holding `key` in the store, so instances sharing one store serialise on it.
   * The lease lasts `ttlMs` and is renewed while `fn` runs; a crashed holder frees it after `ttlMs`.
   */
  withLock<T>(key: string, ttlMs: number, fn: () => Promise<T>, options?: LockOptions): Promise<T>;
}

/**
 * Tells caches that tokens or connections may have changed elsewhere (another process on the same
 * SQLite file, another instance on the same PostgreSQL database). In-process writes move it too.
 */
export interface ChangeFeed {
  /** Cheap; a different value than last time means cached auth state must be dropped. */
  version(): Promise<string>;
}

export interface Store {
  dialect: 'sqlite' | 'postgres';
  connections: ConnectionsRepository;
  tokens: TokensRepository;
  locks: LocksRepository;
  jobs: JobsRepository;
  idempotency: IdempotencyRepository;
  changes: ChangeFeed;
  close(): Promise<void>;
}

export class LockTimeoutError extends Error {
  constructor(readonly key: string) {
    super(`timed out waiting for lock ${key}`);
    this.name = 'LockTimeoutError';
  }
}
