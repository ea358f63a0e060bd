import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { sendError } from './errors.ts';

/**
 * Router failures Fastify answers before any route or hook runs (a URL that does not decode, an
 * object name over the router's length limit) get the API's error shape instead of Fastify's own
 * `{"error", "message", "statusCode"}`.
 */
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
