import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, toErrorBody } from '../../errors/index.ts';
import { CrmError } from '../../providers/errors.ts';
import { validationError } from './validation.ts';

/** Fastify's own failures (parsing, limits, routing) as API errors. */
function fromFastify(error: FastifyError, bodyLimit: number): ApiError | null {
  if (error.validation !== undefined)
    return validationError(error.validation, error.validationContext ?? 'body');
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(
        'invalid_json',
        'The request body is not valid JSON. Send a JSON object such as {"data": …}.',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_body', 'The Content-Length header does not match the body that was sent.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        'body_too_large',
        `The request body is larger than ${bodyLimit} bytes. Split it into smaller requests (at most 10000 records each).`,
        { details: [{ limit_bytes: bodyLimit }] },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'unsupported_media_type',
        'The request body must be JSON. Send the header Content-Type: application/json.',
      );
  }
  if (error.statusCode === 400)
    return new ApiError('invalid_body', 'The request could not be read. Check its body and headers.');
  return null;
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const { status, body } = toErrorBody(error, request.id);
  if (error instanceof ApiError) reply.headers(error.headers);
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Router failures answered before any route or hook runs, in the API's error shape rather than Fastify's. */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? // The router's only parameter is the object name: answer as its schema would.
        new ApiError(
          'invalid_object_name',
          'The object name in the path is longer than any API name (at most 80 characters). Use a name such as Account, Invoice__c, contacts or 0-1.',
        )
      : new ApiError(
          'invalid_path',
          'The URL path is not valid: it has a malformed %-escape. Percent-encode each byte as %XX.',
        );
  return sendError(request, reply, apiError);
}

/** The one error handler: every failure leaves through `sendError`, 5xx without internal text. */
export const errorHandling = fp(
  async (app: FastifyInstance, options: { bodyLimit: number }) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const apiError = error instanceof ApiError ? error : fromFastify(error, options.bodyLimit);
      if (apiError === null) {
        request.log.error({ err: error, code: 'internal_error' }, 'request failed');
      } else if (apiError.status >= 500) {
        // CRM failures are expected events: log what failed, not the CRM's body (the client gets it).
        const cause = apiError.cause;
        const crm =
          cause instanceof CrmError
            ? { provider: cause.provider, crmStatus: cause.status, reason: cause.message }
            : {};
        request.log.warn({ code: apiError.code, status: apiError.status, ...crm }, 'request failed');
      } else {
        request.log.info({ code: apiError.code, status: apiError.status }, 'request refused');
      }
      return sendError(request, reply, apiError ?? error);
    });

    app.setNotFoundHandler((request, reply) =>
      sendError(
        request,
        reply,
        new ApiError(
          'not_found',
          `There is no route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)}. GET /openapi.json lists every route.`,
        ),
      ),
    );
  },
  { name: 'error-handling' },
);
