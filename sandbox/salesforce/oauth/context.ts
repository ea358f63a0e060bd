import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallAccounting, Realism } from '../../shared/index.ts';
import type { OAuthState } from './state.ts';

/** What the OAuth routes need from the sandbox's context (the app's context has these members). */
export interface OAuthContext {
  oauth: OAuthState;
  accounting: CallAccounting;
  realism: Realism;
}

/** The sandbox is login host and instance at once, so both URLs come from the request's own host. */
export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function identityUrl(request: FastifyRequest, orgId: string, userId: string): string {
  return `${baseUrl(request)}/id/${orgId}/${userId}`;
}

/**
 * Accounting, latency and faults for routes whose kind depends on the body (the token endpoint's
 * `grant_type`), which the shared onRequest hook cannot see. Returns true when a fault answered.
 * Faults render as the OAuth endpoint's own errors.
 */
export async function countOAuthCall(
  ctx: OAuthContext,
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
      return false;
    case 'expireToken':
      await oauthErrorReply(reply, 400, 'invalid_grant', 'expired access/refresh token');
      return true;
    case 'slow':
      await ctx.realism.slowDelay();
      return false;
    case 'drop':
      request.raw.socket.destroy();
      reply.hijack();
      return true;
    case 'rateLimit':
      await oauthErrorReply(reply, 400, 'rate_limit_exceeded', 'rate limit exceeded');
      return true;
    case 'error503':
      await oauthErrorReply(reply, 503, 'unknown_error', 'retry your request');
      return true;
    case 'error500':
    case 'lock':
      await oauthErrorReply(reply, 500, 'unknown_error', 'retry your request');
      return true;
  }
}

export function oauthErrorReply(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .header('cache-control', 'no-cache,must-revalidate,max-age=0,no-store,private')
    .send(JSON.stringify({ error, error_description: description }));
}
