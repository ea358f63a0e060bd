import type { FastifyInstance } from 'fastify';
import { encodeUtf8Yielding } from '../../lib/utf8-yielding.ts';

/** From this many characters, an answer is encoded to bytes in slices before it is written. */
const LARGE_REPLY_CHARS = 256 * 1024;

/**
 * A string answer is measured (Content-Length) and encoded to UTF-8 by Node in one block when it
 * is written: ~40 ms for 8 MiB of non-ASCII text, such as a CRM error echoing a long field value.
 * A large one is handed over as bytes encoded in slices instead, with yields to the event loop.
 */
export function registerLargeReplies(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, _reply, payload) =>
    typeof payload === 'string' && payload.length >= LARGE_REPLY_CHARS
      ? encodeUtf8Yielding(payload)
      : payload,
  );
}
