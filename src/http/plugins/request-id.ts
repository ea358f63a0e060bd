import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { pooledRandomBytes } from '../../lib/random-pool.ts';

const INCOMING = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Request id: the caller's `X-Request-Id` when it looks like an id (so a client can correlate its
 * own logs), else a fresh `req_…`. Never echoed unless it passes the pattern (no header injection).
 */
export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && INCOMING.test(incoming)) return incoming;
  return freshRequestId();
}

/** A new `req_…` id, for answers written before any request could be read. */
export function freshRequestId(): string {
  return `req_${pooledRandomBytes(12).toString('base64url')}`;
}

/** Every response, errors and 404s included, carries `X-Request-Id`. */
export function registerRequestId(app: FastifyInstance): void {
  // Callback hooks (here and in the request log): no promise per request on every route.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}
