// Kysely table types, derived from the rows (rows.ts). Booleans are 0/1 integers and timestamps
// ISO-8601 text, so that one set of queries serves SQLite and PostgreSQL.
import type { ColumnType } from 'kysely';
import type {
  Connection,
  ConnectionStats,
  ConnectLink,
  ConnectState,
  IdempotencyRow,
  JobRow,
  Operator,
  OperatorKey,
  OperatorSession,
  RequestLogEntry,
  TokenRecordWithHash,
} from './rows.ts';

export interface ConnectionsTable extends Omit<Connection, 'sandbox'> {
  sandbox: number;
  credentialsCiphertext: string;
  credentialsKeyId: string;
}

export interface LocksTable {
  key: string;
  owner: string;
  expiresAt: string;
}

export interface ConnectStatesTable extends Omit<ConnectState, 'sandbox'> {
  sandbox: number;
}

export interface ConnectLinksTable extends ConnectLink {
  secretHash: string;
}

export interface OperatorsTable extends Omit<Operator, 'canManage'> {
  passwordHash: string;
  /** 1: may manage the other operators; 0: only their own account. */
  canManage: ColumnType<number, number | undefined, number>;
}

export interface OperatorKeysTable extends OperatorKey {
  hash: string;
}

export interface RequestLogTable extends Omit<RequestLogEntry, 'actor'> {
  actor: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ConnectionStatsTable extends Omit<ConnectionStats, 'allowance'> {
  allowanceUsed: number | null;
  allowanceLimit: number | null;
  allowanceAt: string | null;
}

export interface JobsTable extends Omit<JobRow, 'crmJobIds' | 'cancelRequested'> {
  /** The input without its list, or the whole input of an earlier version's job. */
  input: string;
  /** JSON array text. */
  crmJobIds: string;
  cancelRequested: number;
}

export interface JobResultsTable {
  jobId: string;
  piece: number;
  firstIndex: number;
  results: string;
}

/** One page of a job's input list: the gzipped JSON of an array of records or ids. */
export interface JobInputPagesTable {
  jobId: string;
  page: number;
  body: Uint8Array;
}

export interface JobJournalTable {
  jobId: string;
  key: string;
  value: string;
  updatedAt: string;
}

export interface Database {
  connections: ConnectionsTable;
  tokens: TokenRecordWithHash;
  locks: LocksTable;
  connect_states: ConnectStatesTable;
  connect_links: ConnectLinksTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSession;
  operator_keys: OperatorKeysTable;
  request_log: RequestLogTable;
  connection_stats: ConnectionStatsTable;
  jobs: JobsTable;
  job_results: JobResultsTable;
  job_input_pages: JobInputPagesTable;
  job_journal: JobJournalTable;
  idempotency_keys: IdempotencyRow;
}
