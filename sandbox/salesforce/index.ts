import type { FastifyInstance } from 'fastify';
import { type CallAccounting, listen, type Realism } from '../shared/index.ts';
import { buildSalesforceApp } from './app.ts';
import type { StartSalesforceSandboxOptions } from './context.ts';
import type { SandboxCredentials } from './oauth/index.ts';
import type { Org } from './org/index.ts';

export { buildSalesforceApp } from './app.ts';
export type { SalesforceContext, StartSalesforceSandboxOptions } from './context.ts';
export { lockFaulted } from './context.ts';
export type { SandboxCredentials } from './oauth/index.ts';
export {
  type FieldDescribe,
  type FieldSpec,
  formatDateTime,
  isId,
  normalizeId,
  Org,
  OrgError,
  type SaveResult,
  type SObjectDescribe,
  type SRecord,
  toId18,
} from './org/index.ts';
export { SoqlError } from './query/errors.ts';
export { flattenRecord, type QueryRecord, type QueryRun } from './query/execute.ts';
export { versionsList } from './rest/versions.ts';

export interface SalesforceSandbox {
  /** Base URL: login host and instance URL at once. */
  url: string;
  app: FastifyInstance;
  credentials: SandboxCredentials;
  /** The org's id, as the identity call answers it (`organization_id`). */
  accountId: string;
  realism: Realism;
  accounting: CallAccounting;
  /** The emulated org (metadata, records, SOQL), for tests and tools that seed or inspect it directly. */
  org: Org;
  close(): Promise<void>;
}

/** Starts the Salesforce emulator on `options.port` (0: any free port). */
export async function startSalesforceSandbox(
  options: StartSalesforceSandboxOptions = {},
): Promise<SalesforceSandbox> {
  const { app, ctx } = buildSalesforceApp(options);
  const url = await listen(app, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  });
  ctx.setBaseUrl(url);
  return {
    url,
    app,
    credentials: { ...ctx.oauth.credentials },
    accountId: ctx.oauth.orgId,
    realism: ctx.realism,
    accounting: ctx.accounting,
    org: ctx.org,
    close: () => app.close(),
  };
}
