import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Liveness and readiness. A degraded Redis shows in the details but keeps the instance ready. */
export const health = fp(
  async (
    app: FastifyInstance,
    options: {
      isReady: () => Promise<boolean>;
      draining: () => boolean;
      /** Parts that may be degraded without making the instance unready (a shared Redis). */
      details: () => Record<string, string>;
    },
  ) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      if (options.draining()) return reply.code(503).send({ status: 'shutting_down' });
      const ready = await options.isReady();
      const status = ready ? 'ready' : 'store_unavailable';
      const extra = options.details();
      // Details only when there is more than the store to report (Redis configured).
      if (Object.keys(extra).length === 0) return reply.code(ready ? 200 : 503).send({ status });
      const details = { store: ready ? 'ok' : 'unavailable', ...extra };
      return reply.code(ready ? 200 : 503).send({ status, details });
    });
  },
  { name: 'health' },
);
