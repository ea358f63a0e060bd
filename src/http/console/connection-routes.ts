// Connections: the list, one connection's page, and the forms that connect, re-connect and remove.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ConsoleKit, typed } from './kit.ts';
import { flowNotice, sameAccount } from './notices.ts';
import { connectionPage, connectionsPage } from './pages.ts';
import { ConnectForm, ConnectionsQuery, IdParams, TokenOnlyForm } from './schemas.ts';

/** The CRMs one can connect: from the connect service when it runs, else the registered adapters. */
export function providerChoices(kit: ConsoleKit) {
  const { admin, registry } = kit.ctx;
  return admin.connectAvailable
    ? admin.connect
        .providers()
        .map((p) => ({ id: p.provider, name: p.displayName, missing: p.ready ? [] : p.missing }))
    : registry.list().map((a) => ({ id: a.profile.id, name: a.profile.displayName }));
}

export function connectionRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { ctx } = kit;
  const api = typed(scope);
  const redirectUrl = (request: FastifyRequest) =>
    ctx.admin.connectAvailable
      ? ctx.admin.connect.redirectUri()
      : `${ctx.config.publicUrls[ctx.config.region] ?? `${request.protocol}://${request.host}`}/oauth/callback`;

  api.get('/console/connections', { schema: { querystring: ConnectionsQuery } }, async (request, reply) =>
    kit.send(
      reply,
      connectionsPage(
        kit.frame(request, reply, '/console/connections'),
        await ctx.admin.listConnections(),
        providerChoices(kit),
        ctx.admin.connectAvailable,
        redirectUrl(request),
        flowNotice(request.query),
        sameAccount(await ctx.admin.connectionRecords()),
      ),
    ),
  );

  api.post(
    '/console/connections/:id/remove',
    { schema: { params: IdParams, body: TokenOnlyForm } },
    async (request, reply) => {
      await ctx.admin.removeConnection(request.params.id);
      return reply.redirect('/console/connections', 303);
    },
  );

  api.get('/console/connections/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const { id } = request.params;
    const c = await ctx.admin.getConnection(id);
    const [tokens, entries, usage, all] = await Promise.all([
      ctx.admin.listTokens(id),
      ctx.admin.requests({ connectionId: id, limit: 20 }),
      ctx.admin.usage(168, id),
      ctx.admin.listConnections(),
    ]);
    const series = usage[0] ?? { connectionId: id, hours: [], requests: [], errors: [] };
    const frame = kit.frame(request, reply, '/console/connections');
    return kit.send(reply, connectionPage(frame, c, tokens, entries, series, all, null));
  });
}

/** Connect and Re-connect: each starts the OAuth flow and sends the browser to the consent page. */
export function connectRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { ctx } = kit;
  const api = typed(scope);
  // The flow's binding cookie comes whole from the connect service (its own name, path and lifetime).
  const toConsent = (
    request: FastifyRequest,
    reply: FastifyReply,
    started: { authorizeUrl: string; binding: string },
  ) => {
    reply.header('set-cookie', ctx.admin.connect.bindingCookie(started.binding, kit.secure(request)));
    return reply.redirect(started.authorizeUrl, 303);
  };

  api.post('/console/connections/connect', { schema: { body: ConnectForm } }, async (request, reply) => {
    const label = (request.body.label ?? '').trim();
    const loginHost = (request.body.login_host ?? '').trim();
    const started = await ctx.admin.connect.begin({
      provider: request.body.provider.trim(),
      ...(label === '' ? {} : { label }),
      ...(loginHost === '' ? {} : { loginHost }),
      returnTo: '/console/connections',
    });
    return toConsent(request, reply, started);
  });

  api.post(
    '/console/connections/:id/reconnect',
    { schema: { params: IdParams, body: TokenOnlyForm } },
    async (request, reply) => {
      const c = await ctx.admin.getConnection(request.params.id);
      const started = await ctx.admin.connect.begin({
        provider: c.provider,
        reconnect: c.id,
        returnTo: '/console/connections',
      });
      return toConsent(request, reply, started);
    },
  );
}
