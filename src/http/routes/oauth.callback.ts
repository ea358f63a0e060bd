import type { FastifyReply } from 'fastify';
import type { RouteDoc } from '../route-doc.ts';
import type { ApiApp, FlowAnswer, RouteServices } from './types.ts';

/** Writes a connect-flow answer (page or redirect) with its security headers and cookies. */
export function sendFlowAnswer(reply: FastifyReply, answer: FlowAnswer) {
  reply.headers(answer.headers);
  if (answer.setCookies.length > 0) reply.header('set-cookie', answer.setCookies);
  if (answer.kind === 'redirect') return reply.redirect(answer.location, 303);
  return reply.code(answer.status).type('text/html; charset=utf-8').send(answer.html);
}

/**
 * `GET /oauth/callback`: where the CRM's consent page sends the browser back. Public (the browser
 * carries no API token); the flow's state and the binding cookie prove it started here.
 */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get(
    '/oauth/callback',
    {
      config: {
        doc: {
          operationId: 'oauthCallback',
          summary: 'OAuth redirect URL of the connect flow',
          description:
            'The redirect URL to register in {{crm.oauthApps}}. Answers HTML pages for the browser, not JSON.',
          tags: ['Connect'],
          responses: {
            '200': { description: 'The connected page.' },
            '303': { description: 'Back to the console.' },
          },
          errors: [400, 502],
          hidden: true,
          public: true,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const answer = await ctx.connectFlow.complete({
        query: (request.query ?? {}) as Record<string, unknown>,
        cookieHeader: request.headers.cookie,
      });
      return sendFlowAnswer(reply, answer);
    },
  );
}
