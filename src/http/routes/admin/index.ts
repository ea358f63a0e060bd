import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { OperatorService } from '../../../admin/operators.ts';
import type { AdminService } from '../../../admin/service.ts';
import { ApiError } from '../../../errors/index.ts';
import type { ApiApp } from '../types.ts';
import { connectLinkRoutes, revokeLinkRoute } from './connect-links.ts';
import { connectionRoutes, tokenRoutes } from './connections.ts';
import { requestRoutes, usageRoute } from './requests.ts';

/**
 * The admin API: what the operator console shows and does, for scripts. Authenticated by operator
 * API keys (`crmpk_…`), never by a connection's API token; both call the same AdminService.
 */
export const adminRoutes = fp(
  async (
    app: FastifyInstance,
    services: { operators: Pick<OperatorService, 'verifyKey'>; admin: AdminService },
  ) => {
    app.addHook('onRequest', async (request) => {
      const found = await services.operators.verifyKey(request.headers.authorization);
      if (found !== null) return;
      const missing = (request.headers.authorization ?? '').trim() === '';
      throw new ApiError(
        missing ? 'missing_token' : 'unknown_token',
        'The admin API takes an operator API key: "Authorization: Bearer crmpk_…", created with `./bin/crm-proxy.mjs operators key create --email …`. API tokens of connections are not accepted here.',
        { headers: { 'www-authenticate': 'Bearer realm="crm-proxy-admin"' } },
      );
    });
    const api = app as ApiApp;
    for (const routes of [
      connectionRoutes,
      tokenRoutes,
      connectLinkRoutes,
      revokeLinkRoute,
      requestRoutes,
      usageRoute,
    ])
      routes(api, services.admin);
  },
  { name: 'admin-routes', encapsulate: true, dependencies: ['error-handling', 'json-parser', 'openapi'] },
);
