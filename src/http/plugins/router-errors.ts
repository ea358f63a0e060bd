import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { sendError } from './errors.ts';

/**
 * Router failures Fastify answers before any route or hook runs (a URL that does not decode, a
 * path segment over the router's length limit) get the API's error shape instead of Fastify's own
 * `{"error", "message", "statusCode"}`.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new ApiError(
          'invalid_path',
          'A path segment of this URL is too long. Object names have at most 80 characters.',
        )
      : new ApiError(
          'invalid_path',
          'The URL path is not valid: it has a malformed %-escape. Percent-encode each byte as %XX.',
        );
  return sendError(request, reply, apiError);
}
