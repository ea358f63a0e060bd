import type { FastifyInstance, FastifyRequest } from 'fastify';
import { encodeUtf8Yielding } from '../../lib/utf8-yielding.ts';
import { yieldToLoop } from '../../lib/yield-to-loop.ts';

/** From this many characters on, an answer is encoded in turns of the event loop of its own, in slices. */
const OWN_TURN_FROM = 256 * 1024;
/** An answer listing this many items (a page of records) is serialized in a turn of its own. */
const LONG_LIST = 200;
/** So is the answer to a body of this many bytes (it may echo it: a CRM error quoting a value). */
const LARGE_BODY = 256 * 1024;

/**
 * A large answer takes three stretches of work each about as long as the slices of the request's
 * own work: serialization (~15 ms for 10,000 results, or for an 8 MiB string a CRM's error echoes),
 * then Node's measuring (Content-Length) and UTF-8 encoding when it is written (~40 ms together
 * for 8 MiB of non-ASCII text): a large string answer is handed to Node as bytes, encoded in slices.
 * Each gets turns of the event loop of its own rather than the turn of the work that produced the
 * answer (a store write, a CRM answer parsed).
 */
export function registerLargeReplies(app: FastifyInstance): void {
  // Callback hooks: the answers of ordinary size pass without a turn.
  app.addHook('preSerialization', (request, _reply, payload, done) => {
    if (!mayBeLarge(request, payload)) return done(null, payload);
    void yieldToLoop().then(() => done(null, payload));
  });
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (typeof payload !== 'string' || payload.length < OWN_TURN_FROM) return done(null, payload);
    void yieldToLoop()
      .then(() => encodeUtf8Yielding(payload))
      .then((bytes) => done(null, bytes), done);
  });
}

/** Guessed without serializing: a long `data` list, or a large request it may echo. */
function mayBeLarge(request: FastifyRequest, payload: unknown): boolean {
  const data = (payload as { data?: unknown } | null)?.data;
  if (Array.isArray(data) && data.length >= LONG_LIST) return true;
  return Number(request.headers['content-length']) >= LARGE_BODY;
}
