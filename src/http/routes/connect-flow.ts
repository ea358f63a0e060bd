import type { FastifyReply } from 'fastify';
import type { SentAnswer } from '../../domain/connect.ts';
import type { ApiApp, RouteServices } from './types.ts';

// The browser's side of connecting a CRM account (no API token): pages and redirects, not in the API doc.

/** Writes a connect-flow answer (page or redirect) with its security headers and cookies. */
function sendFlowAnswer(reply: FastifyReply, answer: SentAnswer) {
  reply.headers(answer.headers);
  if (answer.setCookies.length > 0) reply.header('set-cookie', answer.setCookies);
  if (answer.kind === 'redirect') return reply.redirect(answer.location, 303);
  return reply.code(answer.status).type('text/html; charset=utf-8').send(answer.html);
}

export function register(app: ApiApp, ctx: RouteServices): void {
  // The CRM's consent page returns here; the flow's state and binding cookie prove it started here.
  app.get('/oauth/callback', async (request, reply) => {
    const answer = await ctx.connectFlow.complete({
      query: (request.query ?? {}) as Record<string, unknown>,
      cookieHeader: request.headers.cookie,
    });
    return sendFlowAnswer(reply, answer);
  });
  // A one-time connect link, its secret the credential (masked in the request log): a landing page
  // whose Continue (`?continue=1`) redirects to the consent page, or why the link cannot be used.
  app.get<{ Params: { secret: string }; Querystring: { continue?: string } }>(
    '/connect/:secret',
    async (request, reply) => {
      const secure = request.protocol === 'https' || ctx.behindTls;
      const proceed = request.query.continue === '1';
      return sendFlowAnswer(reply, await ctx.connectFlow.openLink(request.params.secret, secure, proceed));
    },
  );
}
