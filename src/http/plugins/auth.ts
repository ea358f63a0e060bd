import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../auth/rate-limit.ts';
import type { VerifyResult } from '../../auth/types.ts';
import type { Connection, TokenRecord } from '../../domain/connection.ts';
import { ApiError } from '../../errors/index.ts';

export interface Principal {
  token: TokenRecord;
  connection: Connection;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface TokenVerifier {
  verify(authorizationHeader: string | undefined): Promise<VerifyResult>;
}

/** onRequest hook of every /v1 route: the bearer token decides the connection, before the body is read. */
export function authenticate(verifier: TokenVerifier, limiter: RateLimiter | null) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const result = await verifier.verify(request.headers.authorization);
    if (result.ok) {
      // Set first, so that a 429 from the limiter is still counted against the token's CRM.
      request.principal = { token: result.token, connection: result.connection };
      // A promise only when the limit is shared across instances (no extra await otherwise).
      const taken = limiter?.take(result.token.id);
      if (taken !== undefined) await taken;
      return;
    }
    // Only a token that is not one of ours is challenged; a revoked or expired one is refused (403).
    const challenge = ['missing_token', 'malformed_token', 'unknown_token'].includes(result.code);
    const headers: Record<string, string> = challenge
      ? { 'www-authenticate': 'Bearer realm="crm-proxy"' }
      : {};
    throw new ApiError(result.code, result.message, { headers });
  };
}

/** The authenticated caller of a /v1 route (set by `authenticate`). */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error('route is missing the authenticate hook');
  return request.principal;
}
