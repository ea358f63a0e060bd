import type { FastifyInstance } from 'fastify';
import type { CallAccounting, Realism } from '../shared/index.ts';
import { listen } from '../shared/index.ts';
import { buildHubSpotApp } from './app.ts';
import type { HubSpotCredentials, HubSpotSandboxOptions } from './context.ts';
import type { Portal } from './model/portal.ts';

export { buildHubSpotApp } from './app.ts';
export type { HubSpotCredentials, HubSpotSandboxOptions } from './context.ts';

export interface HubSpotSandbox {
  /** Base URL: pass it as `basePath` to @hubspot/api-client. */
  url: string;
  app: FastifyInstance;
  credentials: HubSpotCredentials;
  /** The portal's id, as the token information call answers it (`hub_id`). */
  accountId: string;
  realism: Realism;
  accounting: CallAccounting;
  /** The account's data (types, properties, records, owners, pipelines). */
  portal: Portal;
  close(): Promise<void>;
}

/** Starts the HubSpot CRM v3 emulator (see `sandbox/README.md`). */
export async function startHubSpotSandbox(options: HubSpotSandboxOptions = {}): Promise<HubSpotSandbox> {
  const built = buildHubSpotApp(options);
  const url = await listen(built.app, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
  built.setBaseUrl(url);
  return {
    url,
    app: built.app,
    credentials: built.ctx.credentials,
    accountId: String(built.ctx.portal.portalId),
    realism: built.core.realism,
    accounting: built.core.accounting,
    portal: built.ctx.portal,
    close: () => built.app.close(),
  };
}
