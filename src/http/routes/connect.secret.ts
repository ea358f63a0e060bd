import type { RouteDoc } from '../route-doc.ts';
import { sendFlowAnswer } from './oauth.callback.ts';
import type { ApiApp, RouteServices } from './types.ts';

/**
 * `GET /connect/:secret`: a one-time connect link. Public: the secret in the path is the credential
 * (the request log masks it). Checks the link, starts the flow and sends the browser to the consent page.
 */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get<{ Params: { secret: string }; Querystring: { continue?: string } }>(
    '/connect/:secret',
    {
      config: {
        doc: {
          operationId: 'openConnectLink',
          summary: 'Open a connect link',
          description:
            'Landing route of a one-time connect link: an HTML page naming the service, the CRM and what will be shared, whose Continue link (`?continue=1`) redirects to the CRM consent page; or a page saying why the link cannot be used.',
          tags: ['Connect'],
          responses: {
            '200': { description: 'The landing page.' },
            '303': { description: 'To the CRM consent page (with continue=1).' },
          },
          errors: [404, 410],
          hidden: true,
          public: true,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const secure = request.protocol === 'https' || ctx.behindTls;
      const proceed = request.query.continue === '1';
      return sendFlowAnswer(reply, await ctx.connectFlow.openLink(request.params.secret, secure, proceed));
    },
  );
}
