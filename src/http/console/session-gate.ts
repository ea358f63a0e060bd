// The signed-in part of the console: pages only with a live session, forms with its token.
import type { FastifyInstance } from 'fastify';
import { registerCsrf } from '../plugins/csrf.ts';
import { consoleErrorHandler } from './errors.ts';
import { html } from './html.ts';
import { type ConsoleKit, SESSION_COOKIE } from './kit.ts';
import { messagePage } from './pages.ts';

/** The path and query of a request target, never a host (absolute-form target, `//elsewhere`). */
export function pathOnly(target: string): string {
  const url = new URL(target, 'http://console.invalid');
  return `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`;
}

export async function registerSessionGate(scope: FastifyInstance, kit: ConsoleKit): Promise<void> {
  // Before the body is read: without a session there is nothing to do with it.
  scope.addHook('onRequest', async (request, reply) => {
    const s = await kit.ctx.operators.session(request.cookies[SESSION_COOKIE]);
    if (s !== null) return kit.signIn(request, s);
    if (request.method !== 'GET') {
      const text = 'Your session has ended. Sign in again.';
      const page = messagePage(kit.frame(request, reply), 'Signed out', text, '/console/sign-in');
      return kit.send(reply, page, 403);
    }
    // A navigation from another site (the CRM's consent page) carries no SameSite=Strict cookie:
    // one same-site reload brings it along.
    const target = pathOnly(request.url);
    if (request.headers['sec-fetch-site'] === 'cross-site' && !target.includes('reloaded=1')) {
      const join = target.includes('?') ? html`&#38;` : '?';
      const page = html`<!doctype html><meta http-equiv="refresh" content="0;url=${target}${join}reloaded=1">`;
      return kit.send(reply, page);
    }
    return reply.redirect('/console/sign-in', 303);
  });
  // The session cookie is the secret: a token is worth nothing without the session it came from.
  await registerCsrf(scope, { secretCookie: SESSION_COOKIE, path: '/' });
  scope.setErrorHandler(
    consoleErrorHandler(kit, (request, reply) => {
      const text = 'The form’s security token is missing or wrong. Reload the page and submit it again.';
      return kit.message(request, reply, 403, 'Form expired', text);
    }),
  );
}
