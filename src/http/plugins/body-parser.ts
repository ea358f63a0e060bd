import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { MAX_JSON_DEPTH, MAX_OBJECT_KEYS, scanJson, tooDeep } from './json-depth.ts';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. Bodies
 * nested deeper than MAX_JSON_DEPTH, or with an object of more than MAX_OBJECT_KEYS keys, are
 * refused (400) before anything walks them.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    const shape = scanJson(text);
    if (shape === 'wide') {
      done(
        new ApiError(
          'too_many_fields',
          `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
          { details: [{ limit: MAX_OBJECT_KEYS }] },
        ),
      );
      return;
    }
    // Too deep: parsed anyway (the parser is not recursive), only to name the path.
    const deep = shape === 'deep';
    parse(request, text, (error: Error | null, value?: unknown) => {
      if (error !== null) return done(error);
      const path = deep ? tooDeep(value) : null;
      if (path === null) return done(null, value);
      done(
        new ApiError(
          'invalid_body',
          `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path.slice(0, 200)}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
          { details: [{ path: path.slice(0, 200), limit: MAX_JSON_DEPTH }] },
        ),
      );
    });
  });
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}
