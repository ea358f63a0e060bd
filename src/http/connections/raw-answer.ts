import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, toErrorBody } from '../../errors/index.ts';

/** The response Node is writing on a socket, if any (an internal field Node itself relies on). */
function responseOn(socket: Socket): { headersSent: boolean } | undefined {
  return (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage ?? undefined;
}

/**
 * Answers an API error straight on the socket and closes it. Used where Fastify cannot answer any
 * more (the request never finished arriving); nothing is written once an answer has begun.
 */
export function answerAndClose(socket: Socket, error: ApiError, requestId: string): void {
  if (socket.destroyed) return;
  if (socket.writable && responseOn(socket)?.headersSent !== true) {
    const { status, body } = toErrorBody(error, requestId);
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        json,
    );
  }
  socket.destroy();
}

export function requestTimeoutError(what: string, limitMs: number, variable: string): ApiError {
  return new ApiError(
    'request_timeout',
    `${what} did not arrive within ${limitMs} ms, so the connection was closed. Send the whole request without pauses (the limit is ${variable}).`,
    { details: [{ limit_ms: limitMs, setting: variable }] },
  );
}
