// The store's types: its rows, and the store whose repositories' types are their implementations'.
import type { openStore } from './index.ts';

export { LockTimeoutError } from './repositories/locks.ts';
export * from './rows.ts';

export type Store = Awaited<ReturnType<typeof openStore>>;
export type LocksRepository = Store['locks'];
