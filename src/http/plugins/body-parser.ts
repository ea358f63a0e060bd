import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { MAX_JSON_DEPTH, nestsDeeper, tooDeep } from './json-depth.ts';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. Bodies
 * nested deeper than MAX_JSON_DEPTH are refused (400) before anything walks them.
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
    const deep = nestsDeeper(text);
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
