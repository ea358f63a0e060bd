// The operator console: server-rendered pages under /console, signed in with an operator account.
// Session cookie (HttpOnly, SameSite=Strict, Secure over https), a synchronizer CSRF token on every
// form checked on every POST, a CSP that allows only the service's own script and style.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../admin/operators.ts';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../errors/index.ts';
import { RateLimiter } from '../plugins/rate-limit.ts';
import type { RouteDoc } from '../route-doc.ts';
import type { Html } from './html.ts';
import { flowNotice, sameAccount } from './notices.ts';
import {
  connectionPage,
  connectionsPage,
  linksPage,
  messagePage,
  type PageFrame,
  REQUEST_PAGE,
  requestsPage,
  signInPage,
  tokensPage,
  usagePage,
} from './pages.ts';

export const SESSION_COOKIE = 'crmp_console';
const PRE_SESSION_COOKIE = 'crmp_console_pre';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

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

const hidden = { doc: { hidden: true } as RouteDoc };

type Form = Record<string, string | string[] | undefined>;

function field(form: unknown, name: string): string {
  const v = (form as Form | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
}

function readCookies(request: FastifyRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

const ID = /^[A-Za-z0-9_-]{1,80}$/;

export function registerConsole(app: FastifyInstance, ctx: AppContext): void {
  const signedIn = new WeakMap<FastifyRequest, SignedIn>();
  // Sign-in attempts: 10 a minute per client address, 5 per 15 minutes per account.
  const perAddress = new RateLimiter({ perSecond: 10 / 60, burst: 10 }, ctx.clock);
  const perAccount = new RateLimiter({ perSecond: 5 / 900, burst: 5 }, ctx.clock);
  const providers = () =>
    ctx.admin.connectAvailable
      ? ctx.admin.connect
          .providers()
          .map((p) => ({ id: p.provider, name: p.displayName, missing: p.ready ? [] : p.missing }))
      : ctx.registry.list().map((a) => ({ id: a.profile.id, name: a.profile.displayName }));
  const secure = (request: FastifyRequest) => ctx.config.behindTls || request.protocol === 'https';
  const cookie = (request: FastifyRequest, name: string, value: string, path = '/') =>
    `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`;
  const frame = (request: FastifyRequest, current?: string): PageFrame => {
    const s = signedIn.get(request);
    return {
      operator: s?.operator ?? null,
      csrf: s?.session.csrfToken ?? '',
      ...(current === undefined ? {} : { current }),
    };
  };
  const send = (reply: FastifyReply, page: Html, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').send(page.text);
  const redirectUrl = (request: FastifyRequest) =>
    ctx.admin.connectAvailable
      ? ctx.admin.connect.redirectUri()
      : `${ctx.config.publicUrls[ctx.config.region] ?? `${request.protocol}://${request.host}`}/oauth/callback`;

  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 64 * 1024 });

    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
      if (reply.getHeader('cache-control') === undefined) reply.header('cache-control', 'no-store');
      return payload;
    });

    scope.setErrorHandler((error, request, reply) => {
      const apiError = error instanceof ApiError ? error : null;
      const status =
        apiError?.status ??
        (typeof (error as { statusCode?: unknown }).statusCode === 'number'
          ? (error as { statusCode: number }).statusCode
          : 500);
      if (status >= 500 && apiError === null) request.log.error({ err: error }, 'console page failed');
      if (apiError !== null) reply.headers(apiError.headers);
      const text =
        apiError?.message ??
        (status < 500
          ? 'The request could not be read. Go back and try again.'
          : 'Something went wrong; the log has the details.');
      return send(
        reply,
        messagePage(frame(request), status === 404 ? 'Not found' : 'That did not work', text),
        status,
      );
    });

    scope.addHook('preHandler', async (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      if (path.startsWith('/console/assets/') || path === '/console/sign-in') return;
      const s = await ctx.operators.session(readCookies(request).get(SESSION_COOKIE));
      if (s === null) {
        if (request.method !== 'GET') {
          return send(
            reply,
            messagePage(
              frame(request),
              'Signed out',
              'Your session has ended. Sign in again.',
              '/console/sign-in',
            ),
            403,
          );
        }
        // A navigation from another site (the CRM's consent page) carries no SameSite=Strict cookie:
        // one same-site reload brings it along, before deciding the operator is signed out.
        if (request.headers['sec-fetch-site'] === 'cross-site' && !request.url.includes('reloaded=1')) {
          const again = `${request.url}${request.url.includes('?') ? '&' : '?'}reloaded=1`;
          return reply
            .type('text/html; charset=utf-8')
            .send(
              `<!doctype html><meta http-equiv="refresh" content="0;url=${again.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}">`,
            );
        }
        return reply.redirect('/console/sign-in', 303);
      }
      if (request.method === 'POST' && !sameToken(s.session.csrfToken, field(request.body, '_csrf'))) {
        return send(
          reply,
          messagePage(
            frame(request),
            'Form expired',
            'The form’s security token is missing or wrong. Reload the page and submit it again.',
          ),
          403,
        );
      }
      signedIn.set(request, s);
    });

    scope.get('/console/assets/:name', { config: hidden }, async (request, reply) => {
      const name = (request.params as { name: string }).name;
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (asset === undefined) throw new ApiError('not_found', 'No such console asset.');
      return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
    });

    scope.get('/console', { config: hidden }, async (_request, reply) =>
      reply.redirect('/console/connections', 303),
    );

    const signInForm = (
      request: FastifyRequest,
      reply: FastifyReply,
      error: string | null,
      email: string,
      status: number,
    ) => {
      const pre = randomBytes(24).toString('base64url');
      reply.header('set-cookie', cookie(request, PRE_SESSION_COOKIE, pre, '/console'));
      return send(reply, signInPage(pre, error, email), status);
    };

    scope.get('/console/sign-in', { config: hidden }, async (request, reply) =>
      signInForm(request, reply, null, '', 200),
    );

    scope.post('/console/sign-in', { config: hidden }, async (request, reply) => {
      const pre = readCookies(request).get(PRE_SESSION_COOKIE) ?? '';
      if (!sameToken(pre, field(request.body, '_csrf'))) {
        return signInForm(
          request,
          reply,
          'The form’s security token is missing or wrong. Try again.',
          '',
          403,
        );
      }
      const email = field(request.body, 'email').toLowerCase().slice(0, 200);
      try {
        perAddress.take(request.ip);
        perAccount.take(email);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        reply.headers(err.headers);
        return signInForm(
          request,
          reply,
          `Too many sign-in attempts. Wait ${err.headers['retry-after'] ?? 'a few'} seconds and try again.`,
          email,
          429,
        );
      }
      const operator = await ctx.operators.checkPassword(
        email,
        (request.body as Form | undefined)?.['password']?.toString() ?? '',
      );
      if (operator === null) return signInForm(request, reply, 'Wrong email or password.', email, 401);
      const { cookieValue } = await ctx.operators.startSession(operator);
      reply.header('set-cookie', [
        cookie(request, SESSION_COOKIE, cookieValue),
        `${PRE_SESSION_COOKIE}=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict`,
      ]);
      return reply.redirect('/console/connections', 303);
    });

    scope.post('/console/sign-out', { config: hidden }, async (request, reply) => {
      await ctx.operators.endSession(readCookies(request).get(SESSION_COOKIE));
      reply.header(
        'set-cookie',
        `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`,
      );
      return reply.redirect('/console/sign-in', 303);
    });

    scope.get('/console/connections', { config: hidden }, async (request, reply) => {
      const notice = flowNotice(request.query as Record<string, string | undefined>);
      return send(
        reply,
        connectionsPage(
          frame(request, '/console/connections'),
          await ctx.admin.listConnections(),
          providers(),
          ctx.admin.connectAvailable,
          redirectUrl(request),
          notice,
          sameAccount(await ctx.admin.connectionRecords()),
        ),
      );
    });

    scope.post('/console/connections/connect', { config: hidden }, async (request, reply) => {
      const label = field(request.body, 'label');
      const loginHost = field(request.body, 'login_host');
      const { authorizeUrl, binding } = await ctx.admin.connect.begin({
        provider: field(request.body, 'provider'),
        ...(label === '' ? {} : { label }),
        ...(loginHost === '' ? {} : { loginHost }),
        returnTo: '/console/connections',
      });
      reply.header('set-cookie', ctx.admin.connect.bindingCookie(binding, secure(request)));
      return reply.redirect(authorizeUrl, 303);
    });

    scope.post('/console/connections/:id/reconnect', { config: hidden }, async (request, reply) => {
      const c = await ctx.admin.getConnection(idOf(request));
      const { authorizeUrl, binding } = await ctx.admin.connect.begin({
        provider: c.provider,
        reconnect: c.id,
        returnTo: '/console/connections',
      });
      reply.header('set-cookie', ctx.admin.connect.bindingCookie(binding, secure(request)));
      return reply.redirect(authorizeUrl, 303);
    });

    scope.post('/console/connections/:id/remove', { config: hidden }, async (request, reply) => {
      await ctx.admin.removeConnection(idOf(request));
      return reply.redirect('/console/connections', 303);
    });

    scope.get('/console/connections/:id', { config: hidden }, async (request, reply) => {
      const id = idOf(request);
      const c = await ctx.admin.getConnection(id);
      const [tokens, entries, usage, all] = await Promise.all([
        ctx.admin.listTokens(id),
        ctx.admin.requests({ connectionId: id, limit: 20 }),
        ctx.admin.usage(168, id),
        ctx.admin.listConnections(),
      ]);
      const series = usage[0] ?? { connectionId: id, hours: [], requests: [], errors: [] };
      return send(
        reply,
        connectionPage(frame(request, '/console/connections'), c, tokens, entries, series, all, null),
      );
    });

    const tokensView = async (
      request: FastifyRequest,
      reply: FastifyReply,
      created: { token: string; prefix: string } | null,
      error: string | null,
      status = 200,
    ) =>
      send(
        reply,
        tokensPage(
          frame(request, '/console/tokens'),
          await ctx.admin.listTokens(),
          await ctx.admin.listConnections(),
          created,
          error,
        ),
        status,
      );

    scope.get('/console/tokens', { config: hidden }, async (request, reply) =>
      tokensView(request, reply, null, null),
    );

    scope.post('/console/tokens', { config: hidden }, async (request, reply) => {
      const days = field(request.body, 'expires_in_days');
      if (days !== '' && !/^[0-9]{1,4}$/.test(days)) {
        return tokensView(
          request,
          reply,
          null,
          'Expires in days must be a whole number of days (or empty for no expiry).',
          400,
        );
      }
      const name = field(request.body, 'name').slice(0, 100);
      const { token, record } = await ctx.admin.createToken({
        connectionId: field(request.body, 'connection_id'),
        name: name === '' ? null : name,
        expiresInDays: days === '' ? null : Number(days),
      });
      return tokensView(request, reply, { token, prefix: record.prefix }, null, 201);
    });

    scope.post('/console/tokens/:id/revoke', { config: hidden }, async (request, reply) => {
      await ctx.admin.revokeToken(idOf(request));
      return reply.redirect('/console/tokens', 303);
    });

    scope.get('/console/requests', { config: hidden }, async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      const pick = (name: string, pattern: RegExp) => {
        const v = (q[name] ?? '').trim();
        return pattern.test(v) ? v : '';
      };
      const filter = {
        statusClass: pick('status', /^[2-5]xx$/),
        requestId: pick('request_id', /^[A-Za-z0-9._:-]{1,128}$/),
        connectionId: pick('connection_id', ID),
        tokenId: pick('token_id', ID),
      };
      const entries = await ctx.admin.requests({
        statusClass: filter.statusClass === '' ? undefined : Number(filter.statusClass[0]),
        requestId: filter.requestId || undefined,
        connectionId: filter.connectionId || undefined,
        tokenId: filter.tokenId || undefined,
        before: pick('before', /^\d{4}-\d{2}-\d{2}T[0-9:.]{8,12}Z$/) || undefined,
        limit: REQUEST_PAGE,
      });
      return send(
        reply,
        requestsPage(
          frame(request, '/console/requests'),
          entries,
          filter,
          await ctx.admin.listConnections(),
          ctx.config.requestLogDays,
          await ctx.admin.listTokens(),
        ),
      );
    });

    scope.get('/console/usage', { config: hidden }, async (request, reply) => {
      const [connections, usage] = await Promise.all([ctx.admin.listConnections(), ctx.admin.usage(168)]);
      const byId = new Map(usage.map((u) => [u.connectionId, u]));
      const hours = usage[0]?.hours ?? (await ctx.admin.usage(168, '__none__'))[0]?.hours ?? [];
      const empty = (id: string | null) => ({
        connectionId: id,
        hours,
        requests: hours.map(() => 0),
        errors: hours.map(() => 0),
      });
      const series = connections.map((c) => ({ connection: c, usage: byId.get(c.id) ?? empty(c.id) }));
      return send(reply, usagePage(frame(request, '/console/usage'), series));
    });

    const linksView = async (
      request: FastifyRequest,
      reply: FastifyReply,
      created: { url: string; expiresAt: string } | null,
      status = 200,
    ) =>
      send(
        reply,
        linksPage(
          frame(request, '/console/links'),
          ctx.admin.connectAvailable ? await ctx.admin.listLinks() : [],
          providers(),
          ctx.admin.connectAvailable,
          created,
        ),
        status,
      );

    scope.get('/console/links', { config: hidden }, async (request, reply) =>
      linksView(request, reply, null),
    );

    scope.post('/console/links', { config: hidden }, async (request, reply) => {
      const hoursText = field(request.body, 'ttl_hours');
      const hours = hoursText === '' ? undefined : Number(hoursText);
      if (hours !== undefined && !(Number.isInteger(hours) && hours >= 1 && hours <= 720)) {
        throw new ApiError(
          'invalid_value',
          'Valid for hours must be a whole number from 1 to 720 (or empty for 24).',
        );
      }
      const label = field(request.body, 'label');
      const link = await ctx.admin.createLink({
        provider: field(request.body, 'provider'),
        ...(label === '' ? {} : { label }),
        ...(hours === undefined ? {} : { ttlMs: hours * 3600_000 }),
      });
      return linksView(request, reply, { url: link.url, expiresAt: link.expiresAt }, 201);
    });

    scope.post('/console/links/:id/revoke', { config: hidden }, async (request, reply) => {
      await ctx.admin.revokeLink(idOf(request));
      return reply.redirect('/console/links', 303);
    });
  });
}

function idOf(request: FastifyRequest): string {
  const id = (request.params as { id?: string }).id ?? '';
  if (!ID.test(id)) throw new ApiError('not_found', 'No such item here.');
  return id;
}
