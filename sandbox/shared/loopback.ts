import type { FastifyInstance } from 'fastify';

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * The control API (call counts, faults, realism) answers only callers on this machine: a sandbox
 * started with HOST=0.0.0.0 (a container) serves its CRM routes to the network, but nobody there
 * may reset it or inject faults. The matched route decides, so no spelling of the path gets past.
 */
export function controlOnLoopback(app: FastifyInstance, prefix: string): void {
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (!route.startsWith(prefix) || isLoopback(request.socket.remoteAddress)) return;
    return reply.code(403).send({
      error: 'forbidden',
      message: `The sandbox control API (${prefix}) answers only on the loopback interface.`,
    });
  });
}
