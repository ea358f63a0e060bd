import type { FastifyReply, FastifyRequest } from 'fastify';
import { runCall } from '../../shared/index.ts';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, internalErrorBody, rateLimitBody, sendHubSpotError } from '../errors.ts';

/**
 * Accounting, latency and faults for routes whose call kind depends on the body (the token
 * endpoints: `oauth.token.refresh_token`, …); such routes are `uncounted` for the shared hook.
 * Returns true when a fault answered the call.
 */
export function countCall(
  ctx: HubSpotContext,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: string,
): Promise<boolean> {
  return runCall(ctx, request, reply, kind, (fault) => {
    switch (fault) {
      case 'expireToken':
        return undefined;
      case 'rateLimit':
        return sendHubSpotError(reply, 429, rateLimitBody('ten_secondly'));
      case 'error503':
        return sendHubSpotError(reply, 503, hubspotError({ message: 'Service Unavailable' }));
      default:
        return sendHubSpotError(reply, 500, internalErrorBody());
    }
  });
}
