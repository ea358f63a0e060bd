import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { registerGroupRoutes } from './groups.ts';
import { registerPropertyRoutes } from './routes.ts';

export { checkPropertyCreate } from './create.ts';
export { FIELD_TYPES_BY_TYPE } from './rules.ts';

/** Properties API v3: `/crm/v3/properties/{objectType}` with groups and batch. */
export function registerPropertiesRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  registerGroupRoutes(app, ctx);
  registerPropertyRoutes(app, ctx);
}
