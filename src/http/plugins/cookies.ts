import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';

/**
 * `request.cookies` and `reply.setCookie` for the scope this is registered in (the console): the
 * parse and write hooks run on that scope's routes only, never on the API's. Unsigned: every
 * cookie set there is a random secret the server checks (a session, a CSRF secret).
 */
export async function registerCookies(scope: FastifyInstance): Promise<void> {
  await scope.register(cookie);
}

/** The flags of a cookie only this service reads: never sent cross-site, never read by scripts. */
export function privateCookie(path: string, secure: boolean) {
  return { path, httpOnly: true, sameSite: 'strict', secure } as const;
}
