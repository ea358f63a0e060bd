import type { FastifyInstance } from 'fastify';
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
  registerBulk2Routes(app, ctx);
  registerBulk2QueryRoutes(app, ctx);
  registerBulk1Routes(app, ctx);
}
