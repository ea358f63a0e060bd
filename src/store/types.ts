// The store's types: its rows (rows.ts), each repository's contract (its implementation's type,
// repositories/*.ts), and the store that holds them.
import type { ChangeFeed } from './changes.ts';
import type { ConnectLinksRepository, ConnectStatesRepository } from './repositories/connect.ts';
import type { ConnectionsRepository } from './repositories/connections.ts';
import type { IdempotencyRepository } from './repositories/idempotency.ts';
import type { JobsRepository } from './repositories/jobs.ts';
import type { LocksRepository } from './repositories/locks.ts';
import type { OperatorsRepository } from './repositories/operators.ts';
import type { RequestLogRepository } from './repositories/request-log.ts';
import type { TokensRepository } from './repositories/tokens.ts';

export type { ChangeFeed } from './changes.ts';
export type { ConnectLinksRepository, ConnectStatesRepository } from './repositories/connect.ts';
export type { ConnectionsRepository } from './repositories/connections.ts';
export type { IdempotencyRepository } from './repositories/idempotency.ts';
export type { JobsRepository } from './repositories/jobs.ts';
export { type LocksRepository, LockTimeoutError } from './repositories/locks.ts';
export type { OperatorsRepository } from './repositories/operators.ts';
export type { RequestLogRepository } from './repositories/request-log.ts';
export type { TokensRepository } from './repositories/tokens.ts';
export * from './rows.ts';

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
