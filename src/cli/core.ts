// The services the CLI commands need, wired from the parsed config.
import { OperatorService } from '../admin/operators.ts';
import { RequestLog } from '../admin/request-log.ts';
import { AdminService } from '../admin/service.ts';
import { AuthService } from '../auth/service.ts';
import type { Config } from '../config/index.ts';
import { ConnectionService } from '../connections/service.ts';
import type { Keyring } from '../crypto/envelope.ts';
import { type KeyringLog, loadKeyring } from '../crypto/keyring.ts';
import { BUILT_IN_PROVIDERS } from '../providers/index.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';

export interface Core {
  config: Config;
  store: Store;
  keyring: Keyring;
  connections: ConnectionService;
  auth: AuthService;
  operators: OperatorService;
  /** The same service functions the console and the admin API call. */
  admin: AdminService;
  close(): Promise<void>;
}

export async function openCore(config: Config, log: KeyringLog): Promise<Core> {
  // Keys first: a missing production key must stop us before anything touches the store.
  const keyring = loadKeyring(config, log);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const connections = new ConnectionService({ store, keyring, region: config.region });
  const auth = new AuthService({ store, region: config.region, publicUrls: config.publicUrls });
  const now = () => Date.now();
  const requestLog = new RequestLog({ store, now, retentionMs: config.requestLogDays * 86400_000 });
  const admin = new AdminService({
    store,
    connections,
    auth,
    requestLog,
    now,
    displayName: (provider) =>
      BUILT_IN_PROVIDERS.find((m) => m.profile.id === provider)?.profile.displayName ?? provider,
  });
  return {
    config,
    store,
    keyring,
    connections,
    auth,
    operators: new OperatorService({ store, now }),
    admin,
    async close() {
      await requestLog.close();
      await auth.close();
      await store.close();
    },
  };
}
