import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { decodeUtf8Yielding } from '../../lib/utf8-yielding.ts';
import { type JsonShape, MAX_JSON_DEPTH, MAX_OBJECT_KEYS, pointerAt, scanJson } from './json-depth.ts';
import { LARGE_BODY_CHARS, type Parse, parseLargeJson } from './json-pieces.ts';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. Bodies
 * nested deeper than MAX_JSON_DEPTH, or with an object of more than MAX_OBJECT_KEYS keys, are
 * refused (400) before they are parsed. Fastify's own parser (secure-json-parse: `__proto__` and
 * `constructor.prototype` refused) parses every text, whole or in pieces, so a large body gets
 * exactly the answers a small one gets.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  const parse: Parse = (text) => {
    let result: { error: Error | null; value: unknown } = { error: null, value: undefined };
    fastifyParse({} as FastifyRequest, text, (error: Error | null, value?: unknown) => {
      result = { error, value };
    });
    if (result.error !== null) throw result.error;
    return result.value;
  };
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    async (_request: FastifyRequest, body: string | Buffer) => {
      // Decoded here, in slices, rather than by Fastify at once (parseAs: 'string').
      const text = typeof body === 'string' ? body : await decodeUtf8Yielding(body);
      if (text.trim() === '') return undefined;
      if (text.length < LARGE_BODY_CHARS) {
        const shape = scanJson(text);
        if (shape.kind !== 'ok') throw refusal(text, shape);
        return parse(text);
      }
      return parseLargeJson(text, parse, refusal);
    },
  );
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}

function refusal(text: string, shape: Exclude<JsonShape, { kind: 'ok' }>): ApiError {
  if (shape.kind === 'wide') {
    return new ApiError(
      'too_many_fields',
      `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
      { details: [{ limit: MAX_OBJECT_KEYS }] },
    );
  }
  const path = pointerAt(text, shape.at).slice(0, 200);
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}
