import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../../context.ts';

/** Liveness and readiness. A degraded Redis shows in the details but keeps the instance ready. */
export const health = fp(
  async (
    app: FastifyInstance,
    { ctx, state }: { ctx: Pick<AppContext, 'isReady' | 'readinessDetails'>; state: { draining: boolean } },
  ) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      if (state.draining) return reply.code(503).send({ status: 'shutting_down' });
      const ready = await ctx.isReady();
      const status = ready ? 'ready' : 'store_unavailable';
      const extra = ctx.readinessDetails();
      // Details only when there is more than the store to report (Redis configured).
      if (Object.keys(extra).length === 0) return reply.code(ready ? 200 : 503).send({ status });
      const details = { store: ready ? 'ok' : 'unavailable', ...extra };
      return reply.code(ready ? 200 : 503).send({ status, details });
    });
  },
  { name: 'health' },
);
