import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../errors/index.ts';
import { authenticate } from '../plugins/auth.ts';
import { register as connectFlow } from './connect-flow.ts';
import { type RouteServices, typed } from './types.ts';
import { register as auditLogs } from './v1.audit_logs.ts';
import { register as jobs } from './v1.jobs.ts';
import { register as metadata } from './v1.metadata.ts';
import { register as associations } from './v1.object.associate.ts';
import { register as get } from './v1.object.get.ts';
import { register as query } from './v1.object.query.ts';
import { register as writes } from './v1.object.writes.ts';
import { register as proxy } from './v1.proxy.ts';

const ROUTES = [writes, get, query, metadata, associations, auditLogs, proxy, jobs];

/** The API routes, with the narrow services they call (never the whole context). */
export const v1Routes = fp(
  async (instance: FastifyInstance, { services: ctx }: { services: RouteServices }) => {
    const app = typed(instance);
    // POST-only paths, as the routes register them (the pass-through takes every method).
    const postOnly: string[] = [];
    // Authenticated routes live in their own scope: the token is checked before the body is read.
    app.register(async (scope) => {
      scope.decorateRequest('principal', null);
      scope.addHook('onRequest', authenticate(ctx.auth, ctx.rateLimiter));
      scope.addHook('onRoute', (route) => {
        if (route.method === 'POST' && !route.url.endsWith('*')) postOnly.push(route.url);
      });
      for (const route of ROUTES) route(typed(scope), ctx);
    });
    // The browser connect flow: public pages, proven by the flow's state and cookie or the link's secret.
    connectFlow(app, ctx);
    // Another method on a POST-only path gets 405 with `Allow: POST` (not 404).
    app.register(async (scope) => {
      for (const url of postOnly) {
        scope.route({
          method: ['GET', 'PUT', 'PATCH', 'DELETE'],
          url,
          handler: async (request) => {
            throw new ApiError(
              'method_not_allowed',
              `${request.method} is not allowed on ${url.replace(/:(\w+)/g, '{$1}')}. Use POST.`,
              { headers: { allow: 'POST' } },
            );
          },
        });
      }
    });
  },
  {
    name: 'v1-routes',
    encapsulate: true,
    dependencies: ['error-handling', 'json-parser', 'openapi'],
  },
);
