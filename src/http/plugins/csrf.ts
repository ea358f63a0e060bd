import csrfProtection from '@fastify/csrf-protection';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';

/** The flags of a cookie only this service reads: never sent cross-site, never read by scripts. */
export function privateCookie(path: string, secure: boolean) {
  return { path, httpOnly: true, sameSite: 'strict', secure } as const;
}

/** The form field every protected form carries its token in. */
export const CSRF_FIELD = '_csrf';

const REFUSALS = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/** A POST refused for a missing or wrong token (both answer 403). */
export const isCsrfRefusal = (error: FastifyError): boolean => REFUSALS.has(error.code);

/**
 * CSRF protection for the forms of one scope (needs @fastify/cookie): the secret lives in the
 * private cookie `secretCookie`, and every POST must carry a token of it in `_csrf`, else 403.
 */
export async function registerCsrf(
  scope: FastifyInstance,
  options: { secretCookie: string; path: string; signed?: boolean },
): Promise<void> {
  await scope.register(csrfProtection, {
    cookieKey: options.secretCookie,
    // Signed, a planted cookie cannot choose the secret: it fails its signature and counts as none.
    cookieOpts: { ...privateCookie(options.path, false), signed: options.signed === true },
    getToken: (request: FastifyRequest) => {
      const token = (request.body as Record<string, unknown> | null | undefined)?.[CSRF_FIELD];
      return typeof token === 'string' ? token : undefined;
    },
    // A refused form is an answer, not an incident.
    logLevel: 'info',
  });
  scope.addHook('preValidation', (request, reply, done) => {
    if (request.method === 'POST') scope.csrfProtection(request, reply, done);
    else done();
  });
}
