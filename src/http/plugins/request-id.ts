import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { pooledRandomBytes } from '../../lib/random-pool.ts';
import { looksLikeToken } from '../../lib/redact.ts';

const INCOMING = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Request id: the caller's `X-Request-Id` when it looks like an id (so a client can correlate its
 * own logs), else a fresh `req_…`. Never echoed unless it passes the pattern (no header injection)
 * and does not look like a credential.
 */
export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  // A token pasted into the header would be logged and stored as the id: a fresh id replaces it.
  if (typeof incoming === 'string' && INCOMING.test(incoming) && !looksLikeToken(incoming)) return incoming;
  return freshRequestId();
}

let sequence = 0;

/**
 * A new `req_…` id: the time in milliseconds and a counter (base 36, fixed width), then 48 random
 * bits. Ids made one after the other sort together, so the request log's index on them grows at
 * its end: with wholly random ids every row landed on another index page, which tripled the cost
 * of writing the log (and the time its batches block the event loop). Also used for answers
 * written before any request could be read.
 */
export function freshRequestId(): string {
  sequence = (sequence + 1) % 1_679_616; // 36^4
  return `req_${Date.now().toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${pooledRandomBytes(6).toString('base64url')}`;
}

/** Every response, errors and 404s included, carries `X-Request-Id`. */
export const requestId = fp(
  async (app: FastifyInstance) => {
    // Callback hooks (here and in the request log): no promise per request on every route.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'request-id' },
);
