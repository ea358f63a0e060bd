import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { pooledRandomBytes } from '../../lib/random-pool.ts';
import { looksLikeToken } from '../../lib/redact.ts';

const INCOMING = /^[A-Za-z0-9._:-]{8,128}$/;

/** The caller's `X-Request-Id` if it matches (no header injection) and is no credential, else a fresh id. */
export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && INCOMING.test(incoming) && !looksLikeToken(incoming)) return incoming;
  return freshRequestId();
}

let sequence = 0;

/**
 * A new `req_…` id: time, a counter, then 48 random bits. Ids sort by creation so the request log's
 * index grows at its end (random ids made writing the log much slower).
 */
export function freshRequestId(): string {
  sequence = (sequence + 1) % 1_679_616; // 36^4
  return `req_${Date.now().toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${pooledRandomBytes(6).toString('base64url')}`;
}

/** Every response, errors and 404s included, carries `X-Request-Id`. */
export const requestId = fp(
  async (app: FastifyInstance) => {
    // A callback hook: no promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'request-id' },
);
