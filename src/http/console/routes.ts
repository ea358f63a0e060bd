// The operator console: server-rendered pages under /console. Cookies, CSRF tokens and headers come
// from Fastify's plugins, registered in the console's scope only, so every /console answer (a 404
// too) carries them.
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
import { connectionRoutes } from './connection-routes.ts';
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

const ASSETS = new Map(
  Object.entries({ 'console.css': 'text/css', 'console.js': 'text/javascript' }).map(([name, type]) => [
    name,
    { type: `${type}; charset=utf-8`, body: readFileSync(new URL(`./assets/${name}`, import.meta.url)) },
  ]),
);

export const consoleRoutes = fp(
  async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    const kit = consoleKit(ctx);
    // `signed: true` cookies are signed with the first key and checked against each (key rotation).
    await app.register(cookie, { secret: [...ctx.operators.cookieKeys] });
    // No helmet CSP defaults (`upgrade-insecure-requests` breaks plain http) and no HSTS (the TLS
    // proxy's choice). Not cached unless a route says so: pages show tokens and links once.
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
    // A form from another site is refused whatever it carries (before the session and token checks).
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD' || !crossSite(request, ctx.config)) return;
      const text =
        'This form was sent from another site, so it was not accepted. Open the console itself and send it from there.';
      return kit.message(request, reply, 403, 'Refused', text);
    });
    publicRoutes(app, kit);
    frontDoorRoutes(app, kit);
    await app.register(async (preSession) => preSessionRoutes(preSession, kit));
    await app.register(async (pages) => {
      await registerSessionGate(pages, kit);
      signOutRoute(pages, kit);
      connectionRoutes(pages, kit);
      tokenRoutes(pages, kit);
      logRoutes(pages, kit);
      await pages.register(async (operators) => operatorRoutes(operators, kit));
    });
  },
  { name: 'console', encapsulate: true, dependencies: ['error-handling'] },
);

/** What needs no session: the stylesheet and script, and /console itself. */
function publicRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const api = typed(scope);
  api.get('/console/assets/:name', { schema: { params: AssetParams } }, async (request, reply) => {
    const asset = ASSETS.get(request.params.name);
    if (asset === undefined) throw new ApiError('not_found', 'No such console asset.');
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
  api.get('/console', {}, async (_request, reply) =>
    reply.redirect((await kit.ctx.setup.open()) ? '/console/setup' : '/console/connections', 303),
  );
  // Any other path under /console: the console's own 404 page.
  scope.all('/console/*', {}, async () => {
    throw new ApiError('not_found', 'No such console page.');
  });
}

/**
 * A request from another origin, by `Sec-Fetch-Site` or by an `Origin` that is neither this host nor
 * a public URL. `Origin: null` is not decisive: the console's own no-referrer pages send it.
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
