import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { NewRequestLogEntry } from '../../admin/request-log.ts';
import type { AppContext } from '../../context.ts';
import { type RequestMeter, withCallContext } from '../../lib/call-context.ts';
import { isoTime } from '../../lib/clock.ts';
import { maskTokens } from '../../lib/redact.ts';
import type { RequestTrace } from '../../lib/tracing.ts';

interface Pending {
  at: string;
  meter: RequestMeter;
  trace?: RequestTrace | undefined;
  error?: { code: string; message: string };
}

const LOGGED = /^\/v1\/(?!admin(?:\/|$))/;

declare module 'fastify' {
  interface FastifyRequest {
    /** The request log's entry in the making (a decoration: no per-request map to keep). */
    requestLogPending: Pending | null;
  }
}

/** One request log entry per answered /v1 request (not admin), with its CRM calls; no body, no query. */
export const requestLog = fp(
  async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    app.decorateRequest('requestLogPending', null);

    app.addHook('onRequest', (request, _reply, done) => {
      if (LOGGED.test(request.url))
        request.requestLogPending = {
          at: isoTime(ctx.clock.now()),
          meter: { crmCalls: 0, lastHeaders: undefined },
          trace: ctx.tracing?.startRequest(request.method, request.url.split('?')[0] ?? '', request.headers),
        };
      done();
    });
    // The handler and all it awaits (a job it starts too) run with the request's id and meter.
    app.addHook('preHandler', (request, _reply, done) => {
      const p = request.requestLogPending;
      if (p === null) return done();
      withCallContext({ requestId: request.id, meter: p.meter, trace: p.trace?.scope }, done);
    });
    // The API's own error answers are small JSON strings: their code (and, for 5xx, message) is kept.
    app.addHook('onSend', (request, reply, payload, done) => {
      const p = request.requestLogPending;
      if (p === null || reply.statusCode < 400 || typeof payload !== 'string' || payload.length > 65_536)
        return done(null, payload);
      try {
        const body = JSON.parse(payload) as { error?: { code?: unknown; message?: unknown } };
        if (typeof body.error?.code === 'string') {
          p.error = {
            code: body.error.code.slice(0, 60),
            message: String(body.error.message ?? '').slice(0, 400),
          };
        }
      } catch {
        // Not one of ours (a CRM's answer passed through): no code.
      }
      done(null, payload);
    });
    app.addHook('onResponse', (request, reply, done) => {
      const p = request.requestLogPending;
      if (p === null) return done();
      request.requestLogPending = null;
      p.trace?.end(reply.statusCode, request.routeOptions.url);
      const principal = request.principal ?? null;
      const via = reply.getHeader('x-crm-proxy-interface');
      const entry: NewRequestLogEntry = {
        at: p.at,
        method: request.method,
        path: maskTokens(request.url.split('?')[0] ?? '').slice(0, 500),
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime),
        crmCalls: p.meter.crmCalls,
        // The interface alone; the reason beside it is in the service's log line.
        interface: typeof via === 'string' ? (via.split(';')[0] ?? '').trim().slice(0, 40) : null,
        requestId: request.id,
        tokenId: principal?.token.id ?? null,
        connectionId: principal?.connection.id ?? null,
        errorCode: p.error?.code ?? null,
      };
      const allowance =
        principal !== null && p.meter.lastHeaders !== undefined
          ? ctx.registry.adapterFor(principal.connection).readAllowance?.(p.meter.lastHeaders)
          : undefined;
      if (allowance !== undefined && principal !== null)
        ctx.metrics?.recordAllowance(principal.connection.provider, principal.connection.id, allowance);
      const failure =
        reply.statusCode >= 500 && p.error !== undefined
          ? `${p.error.code}: ${p.error.message}`.slice(0, 500)
          : undefined;
      ctx.requestLog.record(entry, allowance, failure);
      done();
    });
  },
  { name: 'request-log' },
);
