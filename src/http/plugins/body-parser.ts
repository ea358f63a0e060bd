import type { FastifyInstance } from 'fastify';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body.
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
    parse(request, text, done);
  });
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}
