import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { registerSchemaRoutes } from './routes.ts';

export { objectSchema } from './serialize.ts';

/** Both paths HubSpot answers the Schemas API on (see `registerSchemaRoutes`). */
export const SCHEMAS_PREFIXES = ['/crm/v3/schemas', '/crm-object-schemas/v3/schemas'] as const;

export function registerSchemasRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  for (const prefix of SCHEMAS_PREFIXES) registerSchemaRoutes(app, ctx, prefix);
}
