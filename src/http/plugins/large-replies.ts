import type { FastifyInstance } from 'fastify';
import { encodeUtf8Yielding, SLICED_FROM } from '../../lib/utf8-yielding.ts';

/**
 * A string answer is measured (Content-Length) and encoded to UTF-8 by Node in one block when it
 * is written: ~40 ms for 8 MiB of non-ASCII text, such as a CRM error echoing a long field value.
 * A large one is handed over as bytes encoded in slices instead, with yields to the event loop.
 */
export function registerLargeReplies(app: FastifyInstance): void {
  // A callback hook: the answers of ordinary size pass without a promise.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (typeof payload !== 'string' || payload.length < SLICED_FROM) return done(null, payload);
    encodeUtf8Yielding(payload).then((bytes) => done(null, bytes), done);
  });
}
