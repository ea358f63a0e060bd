import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { registerBasicRoutes } from './basic.ts';
import { registerBatchRoutes } from './batch.ts';
import { registerBatchReadRoute } from './batch-read.ts';
import { registerMergeRoutes } from './merge.ts';
import { registerSearchRoute } from './search.ts';

/**
 * Path prefixes of the Objects API: the v3 paths and HubSpot's date-versioned ones, which answer
 * with the same shapes.
 */
export const OBJECTS_PREFIXES = ['/crm/v3/objects', '/crm/objects/2026-03'];

/** CRM Objects API: basic, batch and search endpoints for every object type. */
export function registerObjectsRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  for (const prefix of OBJECTS_PREFIXES) {
    registerSearchRoute(app, ctx, prefix);
    registerBatchReadRoute(app, ctx, prefix);
    registerBatchRoutes(app, ctx, prefix);
    registerMergeRoutes(app, ctx, prefix);
    registerBasicRoutes(app, ctx, prefix);
  }
}
