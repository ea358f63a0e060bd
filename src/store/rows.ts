// The rows the repositories take and return on both dialects. Timestamps are fixed-width ISO-8601
// UTC strings, so they compare correctly as text.

import type { Connection, Provider, TokenRecord } from '../domain/connection.ts';

export type { ConnectLink } from '../domain/connect.ts';
export type { Connection, ConnectionStatus, Provider, Region, TokenRecord } from '../domain/connection.ts';

/** Encrypted credentials: the ciphertext and the id of the key that sealed it. */
export interface SealedSecret {
  keyId: string;
  ciphertext: string;
}

export type NewConnectionRow = Pick<
  Connection,
  'id' | 'provider' | 'region' | 'label' | 'instanceUrl' | 'apiBaseUrl' | 'sandbox'
> &
  Partial<Pick<Connection, 'accountId' | 'loginUrl'>> & { credentials: SealedSecret; now: string };

/** What a connection was (re)connected to by the connect flow. */
export type ConnectionAccount = Pick<Connection, 'accountId' | 'loginUrl' | 'instanceUrl'>;

/** A started OAuth connect flow, keyed by the hash of its `state`. */
export interface ConnectState {
  id: string;
  provider: Provider;
  /** Origin of the login host the flow talks to. */
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

export type TokenRecordWithHash = TokenRecord & { hash: string };

export type NewTokenRow = Omit<TokenRecordWithHash, 'createdAt' | 'lastUsedAt' | 'revokedAt'> & {
  now: string;
};

export interface Operator {
  id: string;
  email: string;
  createdAt: string;
  lastSignInAt: string | null;
  /** When the account was disabled; null while it may sign in. */
  disabledAt: string | null;
  /** May manage the other operators. */
  canManage: boolean;
}

export type OperatorWithHash = Operator & { passwordHash: string };

export interface OperatorSession {
  idHash: string;
  operatorId: string;
  csrfToken: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** The client address and User-Agent it signed in from. */
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
  /** Who did an operator action (`op_…` or `cli:<user>`); API requests have none. */
  actor?: string | null;
}

export interface RequestLogFilter {
  connectionId?: string | undefined;
  tokenId?: string | undefined;
  /** 2, 3, 4 or 5: statuses 200–299 and so on. */
  statusClass?: number | undefined;
  requestId?: string | undefined;
  /** Entries before this instant (paging backwards). */
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

// Durable writes: jobs, their results and journal, and idempotency keys. JSON columns are text.

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
  /** The input without its list (jobs/stored-input.ts). */
  input: string;
  /** The input's list in pages (gzipped JSON arrays). */
  inputPages?: readonly Uint8Array[];
  now: string;
  /** The storing instance's lease: the job stays `queued` while it waits its turn there. */
  lease?: { owner: string; until: string };
}

export interface IdempotencyRow {
  tokenId: string;
  key: string;
  requestHash: string;
  state: 'in_progress' | 'done';
  status: number | null;
  /** JSON text of the answer's headers. */
  headers: string | null;
  body: string | null;
  /** Set when the request runs as a job: the id it has (or will have). */
  jobId: string | null;
  leaseExpiresAt: string;
  createdAt: string;
}
