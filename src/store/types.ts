// The store's types: its rows (rows.ts) and the store that holds them, each repository's contract
// being its implementation's type (repositories/*.ts).
import type { openStore } from './index.ts';

export { LockTimeoutError } from './repositories/locks.ts';
export * from './rows.ts';

export type Store = Awaited<ReturnType<typeof openStore>>;
export type LocksRepository = Store['locks'];
