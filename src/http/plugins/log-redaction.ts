import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { redactRequestUrl, redactText } from '../../lib/redact.ts';

/** The request as the request log shows it: Fastify's fields, the URL without its query. */
function req(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactRequestUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Errors keep their type and code; message and stack lose anything token-like. */
function err(error: unknown) {
  if (!(error instanceof Error)) return { message: redactText(String(error)) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: redactText(error.message),
    stack: error.stack === undefined ? undefined : redactText(error.stack),
    ...(code === undefined ? {} : { code }),
  };
}

/**
 * The HTTP layer's logger. The serializers are set on a child here so that a logger passed in from
 * outside redacts the same way (its own serializers win over Fastify's).
 */
export function redactingLogger(logger: Logger): FastifyBaseLogger {
  return logger.child({}, { serializers: { req, err } }) as FastifyBaseLogger;
}

/**
 * One line per request instead of Fastify's two: "request completed" carries the request too (each
 * line costs CPU to redact and write). Error and timeout lines are Fastify's.
 */
export class OneLineLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info(
        { req: request, res: reply, responseTime: reply.elapsedTime, ...writeInterface(reply) },
        'request completed',
      );
    }
  }
}

/** The interface that carried a write and why (`X-CRM-Proxy-Interface: bulk2; reason=…`), for its log line. */
function writeInterface(reply: FastifyReply): { interface?: string; reason?: string } {
  const header = reply.getHeader('x-crm-proxy-interface');
  if (typeof header !== 'string') return {};
  const [via = '', reason] = header.split('; reason=');
  return reason === undefined ? { interface: via } : { interface: via, reason };
}
