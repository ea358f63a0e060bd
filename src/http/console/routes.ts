// The operator console: server-rendered pages under /console, signed in with an operator account.
// Cookies, CSRF tokens and the page headers come from Fastify's own plugins, registered in the
// console's scope only (src/http/plugins/cookies.ts, csrf.ts, security-headers.ts): the session
// cookie (HttpOnly, SameSite=Strict, Secure over https), a CSRF token on every form checked on
// every POST, a CSP that allows only the service's own script and style.
import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors/index.ts';
import { registerCookies } from '../plugins/cookies.ts';
import { registerSecurityHeaders } from '../plugins/security-headers.ts';
import { connectionRoutes, connectRoutes } from './connection-routes.ts';
import { consoleErrorHandler } from './errors.ts';
import { type ConsoleKit, consoleKit, typed } from './kit.ts';
import { logRoutes } from './log-routes.ts';
import { AssetParams } from './schemas.ts';
import { registerSessionGate } from './session-gate.ts';
import { signInRoutes, signOutRoute } from './sign-in.ts';
import { linkRoutes, tokenRoutes } from './token-routes.ts';

export { SESSION_COOKIE } from './kit.ts';

/** Only the service's own script, style, images and fonts; no framing, no plugins, no base. */
export const CONSOLE_CSP: Record<string, string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'console.css': {
    type: 'text/css; charset=utf-8',
    body: readFileSync(new URL('./assets/console.css', import.meta.url)),
  },
  'console.js': {
    type: 'text/javascript; charset=utf-8',
    body: readFileSync(new URL('./assets/console.js', import.meta.url)),
  },
};

export function registerConsole(app: FastifyInstance, ctx: AppContext): void {
  const kit = consoleKit(ctx);
  app.register(async (scope) => {
    await registerCookies(scope);
    await registerSecurityHeaders(scope, { csp: CONSOLE_CSP });
    await scope.register(formbody, { bodyLimit: 64 * 1024 });
    scope.setErrorHandler(consoleErrorHandler(kit));
    publicRoutes(scope);
    await scope.register(async (signIn) => signInRoutes(signIn, kit));
    await scope.register(async (pages) => signedInRoutes(pages, kit));
  });
}

/** What needs no session: the stylesheet and script, and /console itself. */
function publicRoutes(scope: FastifyInstance): void {
  const api = typed(scope);
  api.get('/console/assets/:name', { schema: { params: AssetParams } }, async (request, reply) => {
    const { name } = request.params;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (asset === undefined) throw new ApiError('not_found', 'No such console asset.');
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  api.get('/console', async (_request, reply) => reply.redirect('/console/connections', 303));
}

async function signedInRoutes(scope: FastifyInstance, kit: ConsoleKit): Promise<void> {
  await registerSessionGate(scope, kit);
  signOutRoute(scope, kit);
  connectionRoutes(scope, kit);
  connectRoutes(scope, kit);
  tokenRoutes(scope, kit);
  logRoutes(scope, kit);
  linkRoutes(scope, kit);
}
