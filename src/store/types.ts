// Row shapes and repository contracts shared by both dialects (SQLite and PostgreSQL).
// Timestamps are ISO-8601 UTC strings in fixed width, so they compare correctly as text on both.

import type { Connection, ConnectionStatus, Provider, TokenRecord } from '../domain/connection.ts';

// The shared nouns live in the domain module; re-exported for the store's callers.
export type { Connection, ConnectionStatus, Provider, Region, TokenRecord } from '../domain/connection.ts';
export { REGIONS } from '../domain/connection.ts';

/** The encrypted credentials as stored: ciphertext beside the id of the key that sealed it. */
export interface SealedSecret {
  keyId: string;
  ciphertext: string;
}

export interface ConnectionWithSecret extends Connection {
  credentials: SealedSecret;
}

export type NewConnectionRow = Pick<
  Connection,
  'id' | 'provider' | 'region' | 'label' | 'instanceUrl' | 'apiBaseUrl' | 'sandbox'
> &
  Partial<Pick<Connection, 'accountId' | 'loginUrl'>> & { credentials: SealedSecret; now: string };

/** What a connection was (re)connected to, written when its credentials come from the connect flow. */
export type ConnectionAccount = Pick<Connection, 'accountId' | 'loginUrl' | 'instanceUrl'>;

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
  /** Records the account, login host and instance URL a re-connect reached; false when the connection is gone. */
  setAccount(id: string, account: ConnectionAccount, now: string): Promise<boolean>;
}

/** A started OAuth connect flow, keyed by the hash of its `state`. */
export interface ConnectState {
  id: string;
  provider: Provider;
  /** Origin of the CRM's login host (or the sandbox's) that the flow talks to. */
  loginUrl: string;
  sandbox: boolean;
  label: string | null;
  reconnectId: string | null;
  linkId: string | null;
  returnTo: string | null;
  bindingHash: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface ConnectStatesRepository {
  insert(row: Omit<ConnectState, 'usedAt'>): Promise<void>;
  find(id: string): Promise<ConnectState | null>;
  /** Marks the state used; false when it was used already (of two concurrent callbacks, one wins). */
  consume(id: string, now: string): Promise<boolean>;
  /** Deletes states that expired before `before`; returns how many. */
  prune(before: string): Promise<number>;
}

/** A one-time connect link, as listed: never its secret. */
export interface ConnectLink {
  id: string;
  provider: Provider;
  label: string | null;
  loginUrl: string | null;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  /** The connection the link created, once used. */
  connectionId: string | null;
}

export interface ConnectLinksRepository {
  insert(
    row: Omit<ConnectLink, 'usedAt' | 'revokedAt' | 'connectionId'> & { secretHash: string },
  ): Promise<ConnectLink>;
  findBySecretHash(secretHash: string): Promise<ConnectLink | null>;
  find(id: string): Promise<ConnectLink | null>;
  list(): Promise<ConnectLink[]>;
  /** Sets revoked_at if the link is neither used nor revoked; false otherwise. */
  revoke(id: string, now: string): Promise<boolean>;
  /** Marks an unused, unrevoked, unexpired link used by `connectionId`; false when someone else used or revoked it first, or it expired. */
  consume(id: string, now: string, connectionId: string): Promise<boolean>;
}

export interface TokenRecordWithHash extends TokenRecord {
  hash: string;
}

export type NewTokenRow = Omit<TokenRecordWithHash, 'createdAt' | 'lastUsedAt' | 'revokedAt'> & {
  now: string;
};

export interface TokensRepository {
  insert(row: NewTokenRow): Promise<TokenRecord>;
  findByPrefix(prefix: string): Promise<TokenRecordWithHash[]>;
  findById(id: string): Promise<TokenRecord | null>;
  list(connectionId?: string): Promise<TokenRecord[]>;
  /** Sets revoked_at if not set yet; false when the token does not exist or was already revoked. */
  revoke(id: string, now: string): Promise<boolean>;
  touch(id: string, now: string): Promise<void>;
}

export interface LocksRepository {
  /**
   * Runs `fn` while holding `key` in the store, so instances sharing one store serialise on it.
   * The lease lasts `ttlMs` and is renewed while `fn` runs; a crashed holder frees it after `ttlMs`.
   */
  withLock<T>(
    key: string,
    ttlMs: number,
    fn: () => Promise<T>,
    /** `waitMs`: how long to wait for the lock before giving up with LockTimeoutError (default: ttlMs). */
    options?: { waitMs?: number },
  ): Promise<T>;
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
  connectStates: ConnectStatesRepository;
  connectLinks: ConnectLinksRepository;
  operators: OperatorsRepository;
  requestLog: RequestLogRepository;
  jobs: JobsRepository;
  idempotency: IdempotencyRepository;
  changes: ChangeFeed;
  close(): Promise<void>;
}

export class LockTimeoutError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`timed out waiting for lock ${key}`);
    this.key = key;
    this.name = 'LockTimeoutError';
  }
}

// ---- Operators, their sessions and API keys; the request log; what was last seen of each connection.

export interface Operator {
  id: string;
  email: string;
  createdAt: string;
  lastSignInAt: string | null;
  /** When the account was disabled; null while it may sign in. */
  disabledAt: string | null;
  /** May add, disable, enable and remove operators, reset their passwords and end their sessions. */
  canManage: boolean;
}

export interface OperatorWithHash extends Operator {
  passwordHash: string;
}

export interface OperatorSession {
  idHash: string;
  operatorId: string;
  csrfToken: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** The client address and browser (User-Agent) it signed in from. */
  address: string | null;
  userAgent: string | null;
}

export interface OperatorKey {
  id: string;
  operatorId: string;
  label: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface OperatorsRepository extends OperatorSessionsRepository, OperatorKeysRepository {
  insert(
    row: Pick<OperatorWithHash, 'id' | 'email' | 'passwordHash' | 'canManage'> & { now: string },
  ): Promise<Operator>;
  findByEmail(email: string): Promise<OperatorWithHash | null>;
  findById(id: string): Promise<Operator | null>;
  findByIdWithHash(id: string): Promise<OperatorWithHash | null>;
  list(): Promise<Operator[]>;
  /** Sets the password, ends every session of the account and revokes its keys; false when unknown. */
  setPassword(id: string, passwordHash: string, now: string): Promise<boolean>;
  /** Disables (ending its sessions and revoking its keys) or enables an account; false when unknown. */
  setDisabled(id: string, disabledAt: string | null): Promise<boolean>;
  /** Removes an account with its sessions and keys; false when unknown. */
  remove(id: string): Promise<boolean>;
  signedIn(id: string, now: string): Promise<void>;
}

export interface OperatorSessionsRepository {
  insertSession(session: OperatorSession): Promise<void>;
  findSession(idHash: string): Promise<OperatorSession | null>;
  /** Sessions of one operator (or all), newest first. */
  listSessions(operatorId?: string): Promise<OperatorSession[]>;
  touchSession(idHash: string, now: string): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session of an operator; returns how many. */
  deleteSessions(operatorId: string): Promise<number>;
  /** Deletes sessions that expired before `now`; returns how many. */
  pruneSessions(now: string, idleBefore: string): Promise<number>;
}

export interface OperatorKeysRepository {
  insertKey(row: OperatorKey & { hash: string }): Promise<OperatorKey>;
  findKeyByHash(hash: string): Promise<OperatorKey | null>;
  listKeys(): Promise<OperatorKey[]>;
  revokeKey(id: string, now: string): Promise<boolean>;
  touchKey(id: string, now: string): Promise<void>;
}

/** One answered API request as the request log keeps it: never its body. */
export interface RequestLogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  crmCalls: number;
  interface: string | null;
  requestId: string;
  tokenId: string | null;
  connectionId: string | null;
  errorCode: string | null;
  /** Who did an operator action (`op_…` for a console operator, `cli:<user>` for the CLI); API requests have none. */
  actor?: string | null;
}

export interface RequestLogFilter {
  connectionId?: string | undefined;
  tokenId?: string | undefined;
  /** 2, 3, 4 or 5: statuses 200–299 and so on. */
  statusClass?: number | undefined;
  requestId?: string | undefined;
  /** Entries before this instant (paging backwards), newest first. */
  before?: string | undefined;
  limit: number;
}

export interface UsageBucket {
  /** The hour, `YYYY-MM-DDTHH`. */
  hour: string;
  connectionId: string | null;
  requests: number;
  errors: number;
}

export interface ConnectionStats {
  connectionId: string;
  lastUsedAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
  allowance: { used: number; limit: number; at: string } | null;
}

export interface ConnectionStatsUpdate {
  connectionId: string;
  lastUsedAt?: string;
  lastSuccessAt?: string;
  lastError?: { message: string; at: string };
  allowance?: { used: number; limit: number; at: string };
}

export interface RequestLogRepository {
  insertMany(entries: RequestLogEntry[]): Promise<void>;
  query(filter: RequestLogFilter): Promise<RequestLogEntry[]>;
  /** Requests and errors (status 400 or more) per hour from `since`, per connection. */
  usage(since: string, connectionId?: string): Promise<UsageBucket[]>;
  /** Deletes entries older than `before`; returns how many. */
  prune(before: string): Promise<number>;
  updateStats(updates: ConnectionStatsUpdate[]): Promise<void>;
  stats(): Promise<ConnectionStats[]>;
}
// Durable writes: jobs, their results and journal, and idempotency keys. JSON columns are text
// (input pages: gzipped).

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const FINISHED_JOB_STATES: readonly JobState[] = ['completed', 'failed', 'cancelled'];

export interface JobCounts {
  processed: number;
  succeeded: number;
  failed: number;
}

export interface JobRow extends JobCounts {
  id: string;
  tokenId: string;
  connectionId: string;
  requestId: string | null;
  operation: string;
  objectName: string | null;
  state: JobState;
  interface: string | null;
  total: number;
  crmJobIds: string[];
  cancelRequested: boolean;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  attempts: number;
  /** JSON text of the error answer when the job failed as a whole. */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

export interface NewJobRow
  extends Pick<
    JobRow,
    'id' | 'tokenId' | 'connectionId' | 'requestId' | 'operation' | 'objectName' | 'total'
  > {
  /** The job row's input text (src/jobs/stored-input.ts: the input without its list). */
  input: string;
  /** The input's list in pages (gzipped JSON arrays), stored with the row in one transaction. */
  inputPages?: readonly Uint8Array[];
  now: string;
  /**
   * The instance that stored the job holds its lease from the start, until `leaseUntil`: the job
   * stays `queued` while it waits its turn there, and no other instance's sweep takes it.
   */
  lease?: { owner: string; until: string };
}

export interface JobsRepository {
  insert(row: NewJobRow): Promise<JobRow>;
  /** The job without its input (which may be megabytes). */
  find(id: string): Promise<JobRow | null>;
  /** The job row's input text, as stored; null when there is no such job. */
  input(id: string): Promise<string | null>;
  /** One page of the job's input list (numbered from 0), as stored; undefined when there is none. */
  inputPage(id: string, page: number): Promise<Uint8Array | undefined>;
  /** A token's jobs, newest first, after the (createdAt, id) of the previous page's last. */
  list(filter: {
    tokenId?: string;
    limit: number;
    after?: { createdAt: string; id: string };
  }): Promise<JobRow[]>;
  /**
   * Starts the job (`running`) under `owner`'s lease when the lease is unowned, expired or already
   * `owner`'s, and the job is not finished; true when taken.
   */
  claim(id: string, owner: string, now: string, leaseUntil: string): Promise<boolean>;
  /** Extends a lease still held on an unfinished job (queued or running); null when it is no longer held. */
  renew(id: string, owner: string, leaseUntil: string): Promise<{ cancelRequested: boolean } | null>;
  /** Unfinished jobs whose lease is free or expired, oldest first. */
  claimable(now: string, limit: number): Promise<string[]>;
  progress(id: string, owner: string, counts: JobCounts, iface: string | null, now: string): Promise<void>;
  addCrmJobId(id: string, crmJobId: string, now: string): Promise<void>;
  finish(
    id: string,
    owner: string,
    outcome: { state: JobState; counts: JobCounts; iface: string | null; error: string | null },
    now: string,
  ): Promise<boolean>;
  /** Marks a cancel; a queued job nobody runs is cancelled at once. */
  requestCancel(id: string, now: string): Promise<void>;
  /** Results in pieces: `first` is the input position of each piece's first result. */
  putResults(id: string, pieces: Array<{ piece: number; first: number; results: string }>): Promise<void>;
  /** Pieces overlapping positions [from, to). */
  resultPieces(id: string, from: number, to: number): Promise<Array<{ first: number; results: string }>>;
  journalGet(id: string, key: string): Promise<string | undefined>;
  journalSet(id: string, key: string, value: string, now: string): Promise<void>;
  /** Deletes jobs finished before `before` (their input pages, results and journal with them); the count. */
  prune(before: string): Promise<number>;
  /** How many jobs the store holds in each state (metrics). */
  countByState(): Promise<Record<string, number>>;
}

export interface IdempotencyRow {
  tokenId: string;
  key: string;
  requestHash: string;
  state: 'in_progress' | 'done';
  status: number | null;
  /** JSON text of the answer's headers that matter. */
  headers: string | null;
  body: string | null;
  /** Set when the request runs as a job: the id it has (or will have). */
  jobId: string | null;
  leaseExpiresAt: string;
  createdAt: string;
}

export interface IdempotencyRepository {
  /** Inserts the key in progress; when it exists, the existing row (the insert is the lock). */
  claim(
    row: Pick<IdempotencyRow, 'tokenId' | 'key' | 'requestHash' | 'jobId'> & {
      leaseUntil: string;
      now: string;
    },
  ): Promise<{ created: true } | { created: false; row: IdempotencyRow }>;
  complete(
    tokenId: string,
    key: string,
    answer: { status: number; headers: string; body: string },
  ): Promise<void>;
  renew(tokenId: string, key: string, leaseUntil: string): Promise<void>;
  /** Forgets a key whose request never started (refused input): the client may fix it and use it again. */
  release(tokenId: string, key: string): Promise<void>;
  prune(before: string): Promise<number>;
}
