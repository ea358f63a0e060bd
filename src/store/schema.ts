// Kysely table types. Booleans are stored as 0/1 integers and timestamps as ISO-8601 text so that one
// set of queries serves SQLite and PostgreSQL alike; bytes are a Buffer on both (BLOB, bytea).
import type { ColumnType } from 'kysely';

export interface ConnectionsTable {
  id: string;
  provider: string;
  region: string;
  label: string | null;
  instance_url: string | null;
  api_base_url: string | null;
  sandbox: number;
  status: string;
  status_reason: string | null;
  credentials_ciphertext: string;
  credentials_key_id: string;
  credentials_version: number;
  created_at: string;
  updated_at: string;
  /** The CRM account the credentials reach (Salesforce org id, HubSpot portal id); null when unknown. */
  account_id: string | null;
  /** Salesforce: the login host that issued the refresh token (where it is refreshed). */
  login_url: string | null;
}

export interface TokensTable {
  id: string;
  connection_id: string;
  name: string | null;
  prefix: string;
  hash: string;
  region: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface LocksTable {
  key: string;
  owner: string;
  expires_at: string;
}

export interface ConnectStatesTable {
  id: string;
  provider: string;
  login_url: string;
  sandbox: number;
  label: string | null;
  reconnect_id: string | null;
  link_id: string | null;
  return_to: string | null;
  binding_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConnectLinksTable {
  id: string;
  secret_hash: string;
  provider: string;
  label: string | null;
  login_url: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  connection_id: string | null;
}

export interface OperatorsTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: string;
  last_sign_in_at: string | null;
  disabled_at: string | null;
  /** 1: may manage the other operators; 0: only their own account. */
  can_manage: ColumnType<number, number | undefined, number>;
}

export interface OperatorSessionsTable {
  id_hash: string;
  operator_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  address: string | null;
  user_agent: string | null;
}

export interface OperatorKeysTable {
  id: string;
  operator_id: string;
  label: string | null;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface RequestLogTable {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  crm_calls: number;
  interface: string | null;
  request_id: string;
  token_id: string | null;
  connection_id: string | null;
  error_code: string | null;
  /** Who did an operator action (`op_…`, or `cli:<user>`); null for API requests. */
  actor: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ConnectionStatsTable {
  connection_id: string;
  last_used_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  last_success_at: string | null;
  allowance_used: number | null;
  allowance_limit: number | null;
  allowance_at: string | null;
}

export interface JobsTable {
  id: string;
  token_id: string;
  connection_id: string;
  request_id: string | null;
  operation: string;
  object_name: string | null;
  input: string;
  state: string;
  interface: string | null;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  crm_job_ids: string;
  cancel_requested: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  attempts: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface JobResultsTable {
  job_id: string;
  piece: number;
  first_index: number;
  results: string;
}

/** One page of a job's input list: the gzipped JSON of an array of records or ids. */
export interface JobInputPagesTable {
  job_id: string;
  page: number;
  body: Uint8Array;
}

export interface JobJournalTable {
  job_id: string;
  key: string;
  value: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  token_id: string;
  key: string;
  request_hash: string;
  state: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  job_id: string | null;
  lease_expires_at: string;
  created_at: string;
}

export interface Database {
  connections: ConnectionsTable;
  tokens: TokensTable;
  locks: LocksTable;
  connect_states: ConnectStatesTable;
  connect_links: ConnectLinksTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  operator_keys: OperatorKeysTable;
  request_log: RequestLogTable;
  connection_stats: ConnectionStatsTable;
  jobs: JobsTable;
  job_results: JobResultsTable;
  job_input_pages: JobInputPagesTable;
  job_journal: JobJournalTable;
  idempotency_keys: IdempotencyKeysTable;
}
