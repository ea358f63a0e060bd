// API tokens and connect links: each list with its create form, and their revoke forms.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { typed } from '../routes/types.ts';
import { connectFields, createFormToken, type TokenOutcome } from './connection-routes.ts';
import { type ConsoleKit, itemAction } from './kit.ts';
import { linksPage, tokensPage } from './pages.ts';
import { LinkForm, TokenForm } from './schemas.ts';

export function tokenRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { admin } = kit.ctx;
  const api = typed(scope);
  const view = async (request: FastifyRequest, reply: FastifyReply, r?: TokenOutcome) => {
    const frame = kit.frame(request, reply, '/console/tokens');
    const [tokens, connections] = [await admin.listTokens(), await admin.listConnections()];
    return kit.send(
      reply,
      tokensPage(frame, tokens, connections, r?.created ?? null, r?.error ?? null),
      r?.status,
    );
  };

  api.get('/console/tokens', {}, async (request, reply) => view(request, reply));

  api.post('/console/tokens', { schema: { body: TokenForm } }, async (request, reply) => {
    const connectionId = request.body.connection_id.trim();
    return view(request, reply, await createFormToken(kit, request, connectionId, request.body));
  });

  itemAction(api, '/console/tokens/:id/revoke', (id) => admin.revokeToken(id), '/console/tokens');

  // Connect links.
  const linkView = async (
    request: FastifyRequest,
    reply: FastifyReply,
    created: { url: string; expiresAt: string } | null,
    status = 200,
  ) => {
    const links = await admin.connect.listLinks();
    const frame = kit.frame(request, reply, '/console/links');
    const page = linksPage(frame, links, admin.connect.providers(), created);
    return kit.send(reply, page, status);
  };

  api.get('/console/links', {}, async (request, reply) => linkView(request, reply, null));

  api.post('/console/links', { schema: { body: LinkForm } }, async (request, reply) => {
    const hoursText = (request.body.ttl_hours ?? '').trim();
    const hours = hoursText === '' ? undefined : Number(hoursText);
    if (hours !== undefined && !(Number.isInteger(hours) && hours >= 1 && hours <= 720)) {
      throw new ApiError(
        'invalid_value',
        'Valid for hours must be a whole number from 1 to 720 (or empty for 24).',
      );
    }
    const link = await admin.connect.createLink({
      ...connectFields(request.body),
      ...(hours === undefined ? {} : { ttlMs: hours * 3600_000 }),
    });
    return linkView(request, reply, { url: link.url, expiresAt: link.expiresAt }, 201);
  });

  itemAction(api, '/console/links/:id/revoke', (id) => admin.connect.revokeLink(id), '/console/links');
}
