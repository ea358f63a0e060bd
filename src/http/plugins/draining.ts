import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** From `close()` on: readiness 503, and `Connection: close` so keep-alive sockets do not hold the close. */
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
