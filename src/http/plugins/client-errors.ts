import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toErrorBody } from '../../errors/index.ts';
import { sendError } from './errors.ts';

/**
 * Failures Fastify answers before any route or error handler runs — an unparsable HTTP request,
 * oversized headers, a malformed URL — get the same JSON error shape as everything else instead of
 * Fastify's own `{"error", "message", "statusCode"}`.
 */

function clientError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'headers_too_large',
        'The request headers are larger than the server accepts. Send fewer or shorter headers.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(
        'request_timeout',
        'The request was not received completely in time. Send the whole request promptly and retry.',
      );
    default:
      return new ApiError(
        'malformed_request',
        'The request is not valid HTTP/1.1 (request line, headers or framing). Check what your client sends.',
      );
  }
}

/** Node's `clientError`: there is no request object, so the answer is written on the socket. */
export function handleClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = `req_${randomBytes(12).toString('base64url')}`;
    const { status, body } = toErrorBody(clientError(err), requestId);
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(err);
}

/** Router failures (a URL that does not decode, a path segment over the router's length limit). */
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
