// Kysely table types. Booleans are stored as 0/1 integers and timestamps as ISO-8601 text so that one
// set of queries serves SQLite and PostgreSQL alike.

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
  jobs: JobsTable;
  job_results: JobResultsTable;
  job_journal: JobJournalTable;
  idempotency_keys: IdempotencyKeysTable;
}
