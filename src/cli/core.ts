// The service's own context for the CLI commands, without what only a running instance has (Redis,
// metrics, tracing), and where the running service is.
import { pino } from 'pino';
import { type AppContext, type ContextOverrides, createContext } from '../context.ts';
import type { KeyringLog } from '../crypto/keyring.ts';
import { cliIo } from './io.ts';
import { findService, type ServiceAddress, type StoreLocation } from './location.ts';
import { readBootstrapCredentials } from './sandbox-bootstrap.ts';

export type Core = AppContext & { address: ServiceAddress; location: StoreLocation };

export async function openCore(location: StoreLocation, keyringLog: KeyringLog): Promise<Core> {
  const { config } = location;
  const address = findService(location, cliIo().env);
  const ctx = await createContext(
    { ...config, redisUrl: undefined, tracing: undefined, metrics: { ...config.metrics, port: undefined } },
    {
      logger: pino({ level: 'silent' }),
      keyringLog,
      providers: cliIo().providers,
      // The sandbox CRMs `serve` starts with this data directory, so `connections add --sandbox` can be checked.
      ...(config.sandbox ? { sandboxes: bootstrapSandboxes(config.dataDir, address.sandboxUrls) } : {}),
    },
  );
  ctx.connect.useListenAddress(address.baseUrl);
  return { ...ctx, address, location };
}

function bootstrapSandboxes(dataDir: string, urls: Record<string, string>): ContextOverrides['sandboxes'] {
  const out: NonNullable<ContextOverrides['sandboxes']> = {};
  for (const [provider, c] of Object.entries(readBootstrapCredentials(dataDir) ?? {}))
    if (typeof c?.clientId === 'string' && typeof c.clientSecret === 'string')
      out[provider] = { clientId: c.clientId, clientSecret: c.clientSecret, url: urls[provider] };
  return out;
}
