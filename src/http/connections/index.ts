import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerLimits } from '../../config/index.ts';
import { ApiError, toErrorBody } from '../../errors/index.ts';
import { freshRequestId } from '../plugins/request-id.ts';

// Every bound on inbound connections: the Fastify options, and `attach` for what needs the built app.

interface InFlight {
  id: string;
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Node checks the header and whole-request deadlines every `connectionsCheckingInterval`, so it is a
 * fraction of the shortest (at most 1 s). The body idle timer counts only while the service waits on
 * the client; it is ignored while a handler waits on the CRM (CRM calls have their own bounds).
 */
export function connectionLimits(limits: ServerLimits, logger: Logger) {
  const inFlight = new WeakMap<Socket, InFlight>();
  const log = logger.child({ component: 'connections' });
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);

  /** Node answers the header and whole-request deadlines (and unreadable requests) through this. */
  function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const entry = inFlight.get(socket) ?? { id: freshRequestId() };
    const answer = clientErrorAnswer(error, 'res' in entry, limits);
    log.debug({ reqId: entry.id, code: answer.code }, 'client error; connection closed');
    answerAndClose(socket, answer, entry);
  }

  return {
    options: {
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      http: {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(shortest / 4))),
      },
      clientErrorHandler,
    },
    attach(app: FastifyInstance): void {
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

      // An answer sent before the body has arrived closes the connection: else Node keeps reading
      // a body nobody wants.
      app.addHook('onSend', (request, reply, payload, done) => {
        if (!request.raw.complete) reply.header('connection', 'close');
        watchUnread(request.raw.socket, reply.raw, limits.bodyIdleTimeoutMs, log, request.id);
        done(null, payload);
      });

      // Idle between requests (keep-alive), or a stalled body (408); unread answers: `watchUnread`.
      // Listening here means Node no longer destroys a timed-out socket itself: every branch decides.
      app.server.on('timeout', (socket: Socket) => {
        const entry = inFlight.get(socket);
        if (entry === undefined) socket.destroy();
        if (entry === undefined || entry.req.complete) return;
        log.debug({ reqId: entry.id, code: 'request_timeout' }, 'request body stalled; connection closed');
        const idleMs = limits.bodyIdleTimeoutMs;
        const what = `The rest of the request body (nothing for ${idleMs} ms)`;
        answerAndClose(socket, requestTimeoutError(what, idleMs, 'CRM_PROXY_BODY_IDLE_TIMEOUT_MS'), entry);
      });
      capConnections(app.server, limits, log);
    },
  };
}

/** The answer to a client error Node reports: a deadline, headers too large, or unreadable HTTP. */
function clientErrorAnswer(error: NodeJS.ErrnoException, inRequest: boolean, limits: ServerLimits): ApiError {
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
 * Closes the connection once an answer has waited `idleMs` on a client that takes none of it (Node's
 * socket timeout skips a firing whenever the write queue changed, doubling the bound). Progress is
 * the completed writes: `bytesWritten` counts queued ones too.
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

/** Answers an API error straight on the socket and closes it, where Fastify cannot answer any more. */
function answerAndClose(
  socket: Socket,
  error: ApiError,
  request: { id: string; res?: ServerResponse },
): void {
  if (socket.destroyed) return;
  if (socket.writable && request.res?.headersSent !== true) {
    const { status, body } = toErrorBody(error, request.id);
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${request.id}\r\n` +
        'Connection: close\r\n\r\n' +
        json,
    );
  }
  socket.destroy();
}

function requestTimeoutError(what: string, limitMs: number, variable: string): ApiError {
  return new ApiError(
    'request_timeout',
    `${what} did not arrive within ${limitMs} ms, so the connection was closed. Send the whole request without pauses (the limit is ${variable}).`,
    { details: [{ limit_ms: limitMs, setting: variable }] },
  );
}

/**
 * At most `maxConnectionsPerClient` open sockets per client address, so one client cannot hold every
 * slot. A reverse proxy's address must be exempt (all connections come from it); loopback is by default.
 */
function capConnections(server: Server, limits: ServerLimits, log: Logger): void {
  server.maxConnections = limits.maxConnections;
  const cap = limits.maxConnectionsPerClient;
  if (cap <= 0) return;
  const open = new Map<string, number>();
  const exempt = new Set(limits.connectionCapExempt.addresses);
  let lastWarning = Number.NEGATIVE_INFINITY;
  let refusedSinceWarning = 0;
  // Before Node's own listener, so a refused socket never reaches the HTTP parser's work.
  server.prependListener('connection', (socket: Socket) => {
    // `::ffff:10.0.0.1` and `10.0.0.1` are the same client.
    const raw = (socket.remoteAddress ?? '').toLowerCase();
    const address = raw.startsWith('::ffff:') && raw.includes('.') ? raw.slice(7) : raw;
    const loopback = address === '::1' || address.startsWith('127.');
    if (exempt.has(address) || (limits.connectionCapExempt.loopback && loopback)) return;
    const count = open.get(address) ?? 0;
    if (count >= cap) {
      socket.destroy();
      // At most one line a minute: a client hammering the cap must not flood the log.
      refusedSinceWarning++;
      const now = performance.now();
      if (now - lastWarning < 60_000) return;
      log.warn(
        { address, open: count, refused: refusedSinceWarning, cap },
        'connections refused: client address holds CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT',
      );
      lastWarning = now;
      refusedSinceWarning = 0;
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
