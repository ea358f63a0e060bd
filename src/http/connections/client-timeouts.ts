import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerLimits } from '../../config/index.ts';
import { ApiError } from '../../errors/index.ts';
import { freshRequestId } from '../plugins/request-id.ts';
import { answerAndClose, requestTimeoutError } from './raw-answer.ts';

type TimeoutLimits = Pick<
  ServerLimits,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'bodyIdleTimeoutMs' | 'keepAliveTimeoutMs'
>;

interface InFlight {
  id: string;
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Node's own deadlines, as Fastify/`http.createServer` options: headers, whole request and
 * keep-alive. Node checks the first two every `connectionsCheckingInterval`, so that interval is
 * a fraction of the shortest one (at most 1 s): a bound is then exceeded by at most a second.
 */
export function serverTimeoutOptions(limits: TimeoutLimits) {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(shortest / 4)));
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval,
    },
  };
}

/**
 * What the client did, or failed to do, on one socket. Node answers the header and whole-request
 * deadlines through `clientErrorHandler`; the idle deadline is a socket timer armed for every
 * request, which counts only while the service waits on the client: while the body is still
 * arriving (408) and while an answer the client does not read is queued (closed: a status can no
 * longer be sent).
 * While a handler waits on the CRM the timer may fire and is ignored; CRM calls have their own bounds.
 */
export function clientTimeouts(limits: TimeoutLimits, logger: Logger) {
  const inFlight = new WeakMap<Socket, InFlight>();
  const log = logger.child({ component: 'connections' });

  function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const entry = inFlight.get(socket);
    const id = entry?.id ?? freshRequestId();
    const answer = clientErrorAnswer(error, entry !== undefined, limits);
    log.debug({ reqId: id, code: answer.code }, 'client error; connection closed');
    answerAndClose(socket, answer, id);
  }

  function register(app: FastifyInstance): void {
    // Callback hooks: no promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      const socket = request.raw.socket;
      const entry: InFlight = { id: request.id, req: request.raw, res: reply.raw };
      inFlight.set(socket, entry);
      reply.raw.once('close', () => {
        if (inFlight.get(socket) === entry) inFlight.delete(socket);
      });
      socket.setTimeout(limits.bodyIdleTimeoutMs);
      done();
    });

    // An answer sent before the body has arrived (a 401, a 413, a CRM that answered early) closes
    // the connection: otherwise Node would keep reading a body nobody wants, for as long as the
    // client cares to send it.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (!request.raw.complete) reply.header('connection', 'close');
      watchUnread(request.raw.socket, reply.raw, limits.bodyIdleTimeoutMs, log, request.id);
      done(null, payload);
    });

    // Listening here means Node no longer destroys a timed-out socket itself: every branch decides.
    app.server.on('timeout', (socket: Socket) => onSocketTimeout(socket, inFlight.get(socket), limits, log));
  }

  return { clientErrorHandler, register };
}

/** A socket's idle timer fired: between requests, during a stalled body, or behind an unread answer. */
function onSocketTimeout(
  socket: Socket,
  entry: InFlight | undefined,
  limits: TimeoutLimits,
  log: Logger,
): void {
  if (entry === undefined) {
    // Idle between requests: the keep-alive timeout.
    socket.destroy();
    return;
  }
  if (!entry.req.complete) {
    log.debug({ reqId: entry.id, code: 'request_timeout' }, 'request body stalled; connection closed');
    answerAndClose(
      socket,
      requestTimeoutError(
        `The rest of the request body (nothing for ${limits.bodyIdleTimeoutMs} ms)`,
        limits.bodyIdleTimeoutMs,
        'CRM_PROXY_BODY_IDLE_TIMEOUT_MS',
      ),
      entry.id,
    );
    return;
  }
  // Bytes waiting to go out: the client stopped reading. None: the answer waits on the CRM
  // (a streamed pass-through answer), whose silence the forwarder bounds.
  const unsent = socket.writableLength > 0 || entry.res.writableNeedDrain;
  if (entry.res.headersSent && !entry.res.writableFinished && unsent) {
    log.debug({ reqId: entry.id }, 'client stopped reading the answer; connection closed');
    socket.destroy();
  }
}

/** The answer to a client error Node reports: a deadline, headers too large, or unreadable HTTP. */
function clientErrorAnswer(
  error: Error & { code?: string },
  inRequest: boolean,
  limits: TimeoutLimits,
): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // No request yet on this socket: its headers never finished arriving.
    return inRequest
      ? requestTimeoutError('The whole request', limits.requestTimeoutMs, 'CRM_PROXY_REQUEST_TIMEOUT_MS')
      : requestTimeoutError('The request headers', limits.headersTimeoutMs, 'CRM_PROXY_HEADERS_TIMEOUT_MS');
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      'headers_too_large',
      'The request headers are too large. Send fewer or shorter headers.',
    );
  }
  return new ApiError('malformed_request', 'The request is not valid HTTP/1.1 and could not be read.');
}

/**
 * Closes the connection once an answer has waited `idleMs` on a client that takes none of it.
 * Node's socket timeout cannot do this alone: it skips a firing whenever the write queue changed
 * since the last one, so a client that stopped reading was released after about twice the bound.
 * Progress is the bytes whose writes completed (`bytesWritten` counts the queued ones too); it is
 * checked at least every second while an answer is still going out, so the client is released
 * within a second of the bound.
 */
function watchUnread(socket: Socket, res: ServerResponse, idleMs: number, log: Logger, reqId: string): void {
  setImmediate(() => {
    if (res.writableFinished || socket.destroyed) return;
    const taken = () => socket.bytesWritten - socket.writableLength;
    let last = taken();
    let lastMoved = performance.now();
    const timer = setInterval(
      () => {
        const now = taken();
        if (now !== last || socket.writableLength === 0) {
          last = now;
          lastMoved = performance.now();
          return;
        }
        if (performance.now() - lastMoved < idleMs) return;
        clearInterval(timer);
        log.debug({ reqId }, 'client stopped reading the answer; connection closed');
        socket.destroy();
      },
      Math.min(1000, Math.max(50, Math.floor(idleMs / 4))),
    );
    timer.unref();
    res.once('close', () => clearInterval(timer));
  });
}
