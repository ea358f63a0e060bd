import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../../lib/metrics.ts';

/** Counts every answered request by route template, status class and CRM, and times it. */
export const requestMetrics = fp(
  async (app: FastifyInstance, { metrics }: { metrics: Metrics }) => {
    app.addHook('onResponse', (request, reply, done) => {
      metrics.recordRequest({
        // The template (`/v1/object/get/:object_name`), so label values stay bounded.
        route: request.routeOptions.url ?? 'unmatched',
        method: request.method,
        status: reply.statusCode,
        // The token's CRM, once the auth hook has run.
        crm: request.principal?.connection.provider,
        seconds: reply.elapsedTime / 1000,
      });
      done();
    });
  },
  { name: 'request-metrics' },
);
