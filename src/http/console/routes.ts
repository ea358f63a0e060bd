// The operator console: server-rendered pages under /console, signed in with an operator account.
// Cookies, CSRF tokens and the page headers come from Fastify's own plugins, registered in the
// console's scope only (@fastify/cookie, @fastify/csrf-protection, @fastify/helmet): the session
// cookie (HttpOnly, SameSite=Strict, Secure over https), a CSRF token on every form checked on
// every POST, a CSP that allows only the service's own script and style. Every answer under
// /console carries the headers, a 404 included; a form posted from another origin is refused.
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config/index.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors/index.ts';
import { typed } from '../routes/types.ts';
import { connectionRoutes, connectRoutes } from './connection-routes.ts';
import { consoleErrorHandler } from './errors.ts';
import { frontDoorRoutes } from './front-door.ts';
import { type ConsoleKit, consoleKit } from './kit.ts';
import { logRoutes } from './log-routes.ts';
import { operatorRoutes } from './operator-routes.ts';
import { AssetParams } from './schemas.ts';
import { registerSessionGate } from './session-gate.ts';
import { preSessionRoutes, signOutRoute } from './sign-in.ts';
import { tokenRoutes } from './token-routes.ts';

/** Only the service's own script, style, images and fonts; no framing, no plugins, no base. */
const CONSOLE_CSP: Record<string, string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** The stylesheet and the script, read once, by name. */
const ASSETS = new Map(
  Object.entries({ 'console.css': 'text/css', 'console.js': 'text/javascript' }).map(([name, type]) => [
    name,
    { type: `${type}; charset=utf-8`, body: readFileSync(new URL(`./assets/${name}`, import.meta.url)) },
  ]),
);

export const consoleRoutes = fp(
  async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    const kit = consoleKit(ctx);
    // Cookies are unsigned unless set with `signed: true`: those are signed (HMAC-SHA-256) with the
    // first key and checked against each, so the server tells a value it issued from one a client
    // (or a sibling site that can plant cookies) made up.
    await app.register(cookie, { secret: [...ctx.operators.cookieKeys] });
    // Helmet's defaults, except: the console's own CSP with none of helmet's default directives (its
    // `upgrade-insecure-requests` would break a console served over plain http), framing refused
    // outright, and no `Strict-Transport-Security` (a host-wide choice for whoever runs the TLS
    // proxy). Answers are not cached unless the route says otherwise: pages show tokens and links once.
    await app.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: CONSOLE_CSP },
      frameguard: { action: 'deny' },
      strictTransportSecurity: false,
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    app.setErrorHandler(consoleErrorHandler(kit));
    // Before the session and the form token are looked at: a form from another site is refused
    // whatever it carries (the Strict cookies and the token are the other two locks).
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD' || !crossSite(request, ctx.config)) return;
      const text =
        'This form was sent from another site, so it was not accepted. Open the console itself and send it from there.';
      return kit.message(request, reply, 403, 'Refused', text);
    });
    publicRoutes(app, kit);
    frontDoorRoutes(app, kit);
    await app.register(async (preSession) => preSessionRoutes(preSession, kit));
    await app.register(async (pages) => signedInRoutes(pages, kit));
  },
  { name: 'console', encapsulate: true, dependencies: ['error-handling'] },
);

/** What needs no session: the stylesheet and script, and /console itself (the front door: front-door.ts). */
function publicRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const api = typed(scope);
  api.get('/console/assets/:name', { schema: { params: AssetParams } }, async (request, reply) => {
    const asset = ASSETS.get(request.params.name);
    if (asset === undefined) throw new ApiError('not_found', 'No such console asset.');
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  // While no operator exists, the console's door is the first operator's setup.
  api.get('/console', {}, async (_request, reply) =>
    reply.redirect((await kit.ctx.setup.open()) ? '/console/setup' : '/console/connections', 303),
  );
  // Any other path under /console: the console's own 404 page, with its headers.
  scope.all('/console/*', {}, async () => {
    throw new ApiError('not_found', 'No such console page.');
  });
}

/**
 * A request sent by a page of another origin: the browser says so (`Sec-Fetch-Site` other than
 * `same-origin` or `none`), or its `Origin` is neither this request's host nor a configured public
 * URL. An opaque `Origin: null` is not decisive: browsers send it for the console's own forms,
 * whose pages have `Referrer-Policy: no-referrer`. Clients that send neither header (older
 * browsers, scripts) are left to the form token.
 */
function crossSite(request: FastifyRequest, config: Pick<Config, 'publicUrls'>): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return true;
  }
  if (url.host === request.headers.host) return false;
  return !Object.values(config.publicUrls).some((u) => u !== undefined && new URL(u).origin === url.origin);
}

async function signedInRoutes(scope: FastifyInstance, kit: ConsoleKit): Promise<void> {
  await registerSessionGate(scope, kit);
  signOutRoute(scope, kit);
  connectionRoutes(scope, kit);
  connectRoutes(scope, kit);
  tokenRoutes(scope, kit);
  logRoutes(scope, kit);
  await scope.register(async (operators) => operatorRoutes(operators, kit));
}
