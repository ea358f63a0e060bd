import type { FastifyInstance } from 'fastify';

/** From this many characters on, an answer is encoded in a turn of the event loop of its own. */
const OWN_TURN_FROM = 256 * 1024;

/**
 * A string answer is measured (Content-Length) and encoded to UTF-8 by Node when it is written,
 * in the same turn of the event loop as its serialization: ~40 ms each for 8 MiB of non-ASCII
 * text, such as a CRM error echoing a long field value. A large one is encoded in the next turn.
 */
export function registerLargeReplies(app: FastifyInstance): void {
  // A callback hook: the answers of ordinary size pass without a turn.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (typeof payload !== 'string' || payload.length < OWN_TURN_FROM) return done(null, payload);
    setImmediate(() => done(null, Buffer.from(payload, 'utf8')));
  });
}
