import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { RouteServices } from '../routes/types.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the API routes call: narrow services, never the whole context. */
    services: RouteServices;
  }
}

/** Puts the API routes' services on the instance, where every route plugin finds them. */
export const services = fp(
  async (app: FastifyInstance, { services }: { services: RouteServices }) => {
    app.decorate('services', services);
  },
  { name: 'services' },
);
