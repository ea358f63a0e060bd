// The services the CLI commands need, wired from the parsed config.
import { AuthService } from '../auth/service.ts';
import type { Config } from '../config/index.ts';
import { ConnectionService } from '../connections/service.ts';
import type { Keyring } from '../crypto/envelope.ts';
import { type KeyringLog, loadKeyring } from '../crypto/keyring.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';

export interface Core {
  config: Config;
  store: Store;
  keyring: Keyring;
  connections: ConnectionService;
  auth: AuthService;
  close(): Promise<void>;
}

export async function openCore(config: Config, log: KeyringLog): Promise<Core> {
  // Keys first: a missing production key must stop us before anything touches the store.
  const keyring = loadKeyring(config, log);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const connections = new ConnectionService({ store, keyring, region: config.region });
  const auth = new AuthService({ store, region: config.region, publicUrls: config.publicUrls });
  return {
    config,
    store,
    keyring,
    connections,
    auth,
    async close() {
      await auth.close();
      await store.close();
    },
  };
}
