import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CallAccounting, type Realism, runCall } from '../../shared/index.ts';
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
export function countOAuthCall(
  ctx: OAuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: string,
): Promise<boolean> {
  return runCall(ctx, request, reply, kind, (fault) => {
    switch (fault) {
      case 'expireToken':
        return oauthErrorReply(reply, 400, 'invalid_grant', 'expired access/refresh token');
      case 'rateLimit':
        return oauthErrorReply(reply, 400, 'rate_limit_exceeded', 'rate limit exceeded');
      case 'error503':
        return oauthErrorReply(reply, 503, 'unknown_error', 'retry your request');
      case 'error500':
      case 'lock':
        return oauthErrorReply(reply, 500, 'unknown_error', 'retry your request');
    }
  });
}

export function oauthErrorReply(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .header('cache-control', 'no-cache,must-revalidate,max-age=0,no-store,private')
    .send(JSON.stringify({ error, error_description: description }));
}
