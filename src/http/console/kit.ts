// What every console route shares: the signed-in operator, the page frame, how a page is sent.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../admin/operators.ts';
import type { Operator } from '../../admin/service.ts';
import type { AppContext } from '../../context.ts';
import { privateCookie } from '../plugins/csrf.ts';
import type { ApiApp } from '../routes/types.ts';
import type { Html } from './html.ts';
import { messagePage, type PageFrame } from './pages.ts';
import { IdParams, TokenOnlyForm } from './schemas.ts';

/** The session cookie (Path=/); its value is also the secret the session's form tokens come from. */
export const SESSION_COOKIE = 'crmp_console';
/** The sign-in and setup forms' CSRF secret (Path=/console, signed), before there is a session. */
export const PRE_SESSION_COOKIE = 'crmp_console_pre';
/** A browser that signed in before (Path=/console/sign-in): signed, names the account, 180 days. */
export const DEVICE_COOKIE = 'crmp_console_device';

export type ConsoleKit = ReturnType<typeof consoleKit>;

export type FormPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  error: string | null,
  email: string,
  status: number,
) => Promise<FastifyReply>;

export function consoleKit(ctx: AppContext) {
  const signedIn = new WeakMap<FastifyRequest, SignedIn>();
  const secure = (request: FastifyRequest) => ctx.config.behindTls || request.protocol === 'https';
  const frame = (request: FastifyRequest, reply: FastifyReply, current?: string): PageFrame => {
    const s = signedIn.get(request);
    return {
      operator: s?.operator ?? null,
      // Only a signed-in request has the session secret the token is made from.
      csrf: s === undefined ? '' : reply.generateCsrf(),
      ...(s === undefined ? {} : { sessionId: s.session.idHash }),
      ...(current === undefined ? {} : { current }),
    };
  };
  const send = (reply: FastifyReply, page: Html, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').send(page.text);
  return {
    ctx,
    secure,
    frame,
    send,
    signIn: (request: FastifyRequest, s: SignedIn) => {
      signedIn.set(request, s);
    },
    /** A new session in this browser; the pre-session cookie is dropped. */
    startSession: async (request: FastifyRequest, reply: FastifyReply, operator: Operator) => {
      const { cookieValue } = await ctx.operators.startSession(operator, {
        address: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      });
      reply.setCookie(SESSION_COOKIE, cookieValue, privateCookie('/', secure(request)));
      reply.clearCookie(PRE_SESSION_COOKIE, privateCookie('/console', secure(request)));
    },
    signedIn: (request: FastifyRequest): SignedIn => {
      const s = signedIn.get(request);
      if (s === undefined) throw new Error('console route is missing the session gate');
      return s;
    },
    message: (request: FastifyRequest, reply: FastifyReply, status: number, title: string, text: string) =>
      send(reply, messagePage(frame(request, reply), title, text), status),
  };
}

/** A one-button form on the path's `:id` (remove, revoke): it acts, then back to `list`. */
export function itemAction(
  api: ApiApp,
  url: string,
  run: (id: string) => Promise<unknown>,
  list: string,
): void {
  api.post(url, { schema: { params: IdParams, body: TokenOnlyForm } }, async (request, reply) => {
    await run(request.params.id);
    return reply.redirect(list, 303);
  });
}
