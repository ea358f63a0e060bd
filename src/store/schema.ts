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

export interface Database {
  connections: ConnectionsTable;
  tokens: TokensTable;
  locks: LocksTable;
}
