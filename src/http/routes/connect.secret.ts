import type { RouteDoc } from '../route-doc.ts';
import { sendFlowAnswer } from './oauth.callback.ts';
import type { ApiApp, RouteServices } from './types.ts';

/**
 * `GET /connect/:secret`: a one-time connect link. Public: the secret in the path is the credential
 * (the request log masks it). Checks the link, starts the flow and sends the browser to the consent page.
 */
export function register(app: ApiApp, ctx: RouteServices): void {
  app.get<{ Params: { secret: string } }>(
    '/connect/:secret',
    {
      config: {
        doc: {
          operationId: 'openConnectLink',
          summary: 'Open a connect link',
          description:
            'Landing route of a one-time connect link: redirects to the CRM consent page, or answers an HTML page saying why the link cannot be used.',
          tags: ['Connect'],
          responses: { '303': { description: 'To the CRM consent page.' } },
          errors: [404, 410],
          hidden: true,
          public: true,
        } satisfies RouteDoc,
      },
    },
    async (request, reply) => {
      const secure = request.protocol === 'https' || ctx.behindTls;
      return sendFlowAnswer(reply, await ctx.connectFlow.openLink(request.params.secret, secure));
    },
  );
}
