import type { FastifyInstance } from 'fastify';
import { IdFactory } from '../org/ids.ts';
import type { BulkContext } from './context.ts';
import { registerBulk1Routes } from './v1/routes.ts';
import { registerBulk2QueryRoutes } from './v2/query.ts';
import { registerBulk2Routes } from './v2/routes.ts';

export type { BulkContext, BulkOptions, BulkOrg } from './context.ts';

/**
 * Bulk API 2.0 ingest (`/services/data/vXX.X/jobs/ingest`) and query (`.../jobs/query`) jobs, and
 * Bulk API 1.0 (`/services/async/XX.X/job`).
 */
export function registerBulkRoutes(app: FastifyInstance, ctx: BulkContext): void {
  // One id space for every job, as in an org: Bulk 1.0 and 2.0 ingest and query jobs all carry the
  // `750` key prefix, so an id names one job whichever API made it (Bulk 1.0 batch ids, `751`, come
  // from the same factory). A job asked for through an API that did not make it is unknown there.
  const jobIds = new IdFactory();
  ctx.onReset(() => jobIds.reset());
  registerBulk2Routes(app, ctx, jobIds);
  registerBulk2QueryRoutes(app, ctx, jobIds);
  registerBulk1Routes(app, ctx, jobIds);
}
