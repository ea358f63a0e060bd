import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, internalErrorBody, rateLimitBody, sendHubSpotError } from '../errors.ts';

/**
 * Accounting, latency and faults for routes whose call kind depends on the body (the token
 * endpoints: `oauth.token.refresh_token`, …); such routes are `uncounted` for the shared hook.
 * Returns true when a fault answered the call.
 */
export async function countCall(
  ctx: HubSpotContext,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: string,
): Promise<boolean> {
  request.callKind = kind;
  ctx.accounting.record(kind);
  await ctx.realism.callDelay();
  const fault = ctx.realism.nextFault(kind);
  switch (fault) {
    case null:
    case 'expireToken':
      return false;
    case 'slow':
      await ctx.realism.slowDelay();
      return false;
    case 'drop':
      request.raw.socket.destroy();
      reply.hijack();
      return true;
    case 'rateLimit':
      sendHubSpotError(reply, 429, rateLimitBody('ten_secondly'));
      return true;
    case 'error503':
      sendHubSpotError(reply, 503, hubspotError({ message: 'Service Unavailable' }));
      return true;
    default:
      sendHubSpotError(reply, 500, internalErrorBody());
      return true;
  }
}
