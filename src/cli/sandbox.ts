import { type HubSpotSandbox, startHubSpotSandbox } from '../../sandbox/hubspot/index.ts';
import { type SalesforceSandbox, startSalesforceSandbox } from '../../sandbox/salesforce/index.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { onShutdownSignal } from '../main.ts';
import { cliIo, note, UsageError } from './io.ts';
import { launcherSettings, loadOrCreateBootstrapCredentials } from './sandbox-bootstrap.ts';

/** `crm-proxy sandbox …` (options and operands as main.ts declares them): runs until SIGTERM/SIGINT. */
export async function run(
  values: { port?: string; host?: string; persist?: boolean; 'address-picklists'?: string },
  positionals: string[],
): Promise<undefined> {
  const which = positionals[0] ?? 'both';
  if (!['salesforce', 'hubspot', 'both'].includes(which) || positionals.length > 1) {
    throw new UsageError('sandbox takes one of: salesforce, hubspot, both');
  }
  const config = loadConfig(cliIo().env, cliIo().providers);
  if (config.production) {
    throw new ConfigError(
      'the sandbox CRMs do not run when NODE_ENV=production; unset NODE_ENV to start them',
    );
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError('--port must be a port number');
  }
  const picklists = values['address-picklists'];
  if (picklists !== undefined && picklists !== 'on' && picklists !== 'off') {
    throw new UsageError('--address-picklists takes on or off');
  }
  const { ports } = launcherSettings(cliIo().env, config.port);
  const credentials = loadOrCreateBootstrapCredentials(config.dataDir);
  // Alone, a sandbox persists only when asked: the default (on) is for `serve`.
  const persist = values.persist === true || cliIo().env['CRM_PROXY_SANDBOX_PERSIST'] === 'true';
  const common = { host: values.host ?? config.host, ...(persist ? { persistDir: config.dataDir } : {}) };
  const started: Array<{ name: string; sandbox: SalesforceSandbox | HubSpotSandbox }> = [];
  if (which !== 'hubspot') {
    const sandbox = await startSalesforceSandbox({
      ...common,
      port: port ?? ports.salesforce,
      credentials: credentials.salesforce,
      ...(picklists === undefined ? {} : { addressPicklists: picklists === 'on' }),
    });
    started.push({ name: 'Salesforce', sandbox });
  }
  if (which !== 'salesforce') {
    const hsPort = port === undefined ? ports.hubspot : which === 'both' && port !== 0 ? port + 1 : port;
    const sandbox = await startHubSpotSandbox({ ...common, port: hsPort, credentials: credentials.hubspot });
    started.push({ name: 'HubSpot', sandbox });
  }
  for (const { name, sandbox } of started) {
    cliIo().stdout.write(
      `${name} sandbox on ${sandbox.url}\n  client id: ${sandbox.credentials.clientId}\n  access token: ${sandbox.credentials.accessToken}\n  refresh token: ${sandbox.credentials.refreshToken}\n`,
    );
  }
  onShutdownSignal(async () => {
    await Promise.allSettled(started.map(({ sandbox }) => sandbox.close()));
  }, note);
  return undefined;
}
