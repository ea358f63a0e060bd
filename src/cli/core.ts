// The services the CLI commands need, wired from the parsed config.
import { createHmac } from 'node:crypto';
import type { OperatorService } from '../admin/operators.ts';
import type { RequestLog } from '../admin/request-log.ts';
import { type AdminService, createOperatorServices } from '../admin/service.ts';
import { AuthService } from '../auth/service.ts';
import type { Config } from '../config/index.ts';
import { ConnectService, type SandboxCrm } from '../connect/service.ts';
import { ConnectionService } from '../connections/service.ts';
import { TokenManager } from '../connections/token-manager.ts';
import type { Keyring } from '../crypto/envelope.ts';
import { type KeyringLog, loadKeyring } from '../crypto/keyring.ts';
import { systemClock, withSystemSleep } from '../lib/clock.ts';
import { HttpClient } from '../providers/client/http-client.ts';
import { BUILT_IN_PROVIDERS } from '../providers/index.ts';
import { ProviderRegistry } from '../providers/registry.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import { cliIo } from './io.ts';
import { findService, type ServiceAddress } from './location.ts';
import { readBootstrapCredentials } from './sandbox-bootstrap.ts';

export interface Core {
  config: Config;
  store: Store;
  keyring: Keyring;
  connections: ConnectionService;
  auth: AuthService;
  /** Connect links, and connections added only after a check call. */
  connect: ConnectService;
  operators: OperatorService;
  /** The request log: operator actions of the CLI are recorded in it. */
  requestLog: RequestLog;
  /** The same service functions the console and the admin API call. */
  admin: AdminService;
  /** The CRMs' adapters, and access tokens refreshed (and rotated ones stored) as the service does. */
  registry: ProviderRegistry;
  tokens: TokenManager;
  /** Where the running service and its sandbox CRMs are, and what said so. */
  address: ServiceAddress;
  close(): Promise<void>;
}

export async function openCore(config: Config, log: KeyringLog): Promise<Core> {
  // Keys first: a missing production key must stop us before anything touches the store.
  const keyring = loadKeyring(config, log);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const modules = cliIo().providers ?? BUILT_IN_PROVIDERS;
  const connections = new ConnectionService({
    store,
    keyring,
    region: config.region,
    profiles: modules.map((m) => m.profile),
    plainHttpForSandbox: config.plainHttpCrm,
  });
  const auth = new AuthService({ store, region: config.region, publicUrls: config.publicUrls });
  const clock = withSystemSleep(systemClock);
  const client = new HttpClient({ clock });
  const registry = new ProviderRegistry(
    modules,
    {
      client,
      clock,
      // The CLI signs nothing; the adapters only need a key of the right shape.
      signingKey: createHmac('sha256', 'crm-proxy cli').digest(),
    },
    config.providers,
  );
  const address = findService(config, cliIo().env);
  const sandboxes = config.sandbox ? sandboxClients(config, address) : undefined;
  const connect = new ConnectService({
    store,
    connections,
    adapters: () => registry.list(),
    config,
    clock,
    sandboxes,
  });
  connect.useListenAddress(address.baseUrl);
  const tokens = new TokenManager({
    connections,
    locks: store.locks,
    adapterFor: (connection) => registry.adapterFor(connection),
    oauthAppFor: (connection) =>
      registry
        .adapterFor(connection)
        .oauthApp(connection, connection.sandbox ? sandboxes?.[connection.provider] : undefined),
    clock,
    plainHttpAllowed: config.plainHttpCrm,
  });
  const { requestLog, operators, admin } = createOperatorServices({
    store,
    connections,
    auth,
    now: () => Date.now(),
    connect,
    displayName: (provider) =>
      BUILT_IN_PROVIDERS.find((m) => m.profile.id === provider)?.profile.displayName ?? provider,
    requestLogDays: config.requestLogDays,
  });
  return {
    config,
    store,
    keyring,
    connections,
    auth,
    connect,
    operators,
    requestLog,
    admin,
    registry,
    tokens,
    address,
    async close() {
      await requestLog.close();
      await auth.close();
      await client.close();
      await store.close();
    },
  };
}

/**
 * The OAuth clients of the sandbox CRMs that `serve` starts with this data directory (it writes
 * them to sandbox-credentials.json on first start), so `connections add --sandbox` can be checked.
 */
function sandboxClients(config: Config, address: ServiceAddress): Record<string, SandboxCrm> | undefined {
  const file = readBootstrapCredentials(config.dataDir) as Record<string, unknown> | null;
  if (file === null) return undefined;
  const out: Record<string, SandboxCrm> = {};
  for (const [provider, url] of Object.entries(address.sandboxUrls)) {
    const c = file[provider] as { clientId?: unknown; clientSecret?: unknown } | undefined;
    if (typeof c?.clientId === 'string' && typeof c.clientSecret === 'string')
      out[provider] = { url, clientId: c.clientId, clientSecret: c.clientSecret };
  }
  return out;
}
