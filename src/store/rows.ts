// The rows the repositories take and return, shared by both dialects (SQLite and PostgreSQL).
// Timestamps are ISO-8601 UTC strings in fixed width, so they compare correctly as text on both.

import type { Connection, Provider, TokenRecord } from '../domain/connection.ts';

export type { ConnectLink } from '../domain/connect.ts';
// The shared nouns live in the domain module; re-exported for the store's callers.
export type { Connection, ConnectionStatus, Provider, Region, TokenRecord } from '../domain/connection.ts';
export { REGIONS } from '../domain/connection.ts';

/** The encrypted credentials as stored: ciphertext beside the id of the key that sealed it. */
export interface SealedSecret {
  keyId: string;
  ciphertext: string;
}

export type NewConnectionRow = Pick<
  Connection,
  'id' | 'provider' | 'region' | 'label' | 'instanceUrl' | 'apiBaseUrl' | 'sandbox'
> &
  Partial<Pick<Connection, 'accountId' | 'loginUrl'>> & { credentials: SealedSecret; now: string };

/** What a connection was (re)connected to, written when its credentials come from the connect flow. */
export type ConnectionAccount = Pick<Connection, 'accountId' | 'loginUrl' | 'instanceUrl'>;

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

export interface TokenRecordWithHash extends TokenRecord {
  hash: string;
}

export type NewTokenRow = Omit<TokenRecordWithHash, 'createdAt' | 'lastUsedAt' | 'revokedAt'> & {
  now: string;
};

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
