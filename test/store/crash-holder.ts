// Child process for the lock tests: takes a lock, reports it, and dies without releasing it.
import { openStore } from '../../src/store/index.ts';

const [dataDir, databaseUrl, pgSchema, key, ttl] = process.argv.slice(2);
const store = await openStore({
  dataDir: dataDir!,
  databaseUrl: databaseUrl || undefined,
  pgSchema: pgSchema || undefined,
});
await store.locks.withLock(key!, Number(ttl), async () => {
  process.stdout.write('locked\n');
  process.exit(0);
});
