import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';

/**
 * `request.cookies` and `reply.setCookie` for the scope this is registered in (the console): the
 * parse and write hooks run on that scope's routes only, never on the API's. Cookies are unsigned
 * unless set with `signed: true`: those are signed (HMAC-SHA-256) with the first of `secrets` and
 * checked against each of them, so that the server can tell a value it issued from one a client
 * (or a sibling site that can plant cookies) made up.
 */
export async function registerCookies(scope: FastifyInstance, secrets?: readonly Buffer[]): Promise<void> {
  await scope.register(cookie, secrets === undefined ? {} : { secret: [...secrets] });
}

/** The flags of a cookie only this service reads: never sent cross-site, never read by scripts. */
export function privateCookie(path: string, secure: boolean) {
  return { path, httpOnly: true, sameSite: 'strict', secure } as const;
}
