import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Shutdown: from `close()` on, `state.draining` is true (readiness answers 503), and requests still
 * in flight answer with `Connection: close`, so their keep-alive sockets end with the answer
 * instead of holding the close open until the keep-alive timeout.
 */
export const draining = fp(
  async (app: FastifyInstance, { state }: { state: { draining: boolean } }) => {
    app.addHook('preClose', async () => {
      state.draining = true;
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (state.draining) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'draining' },
);
