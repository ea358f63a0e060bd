// Connections: the list, one connection's page, and the forms that connect, re-connect and remove.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { type ApiApp, typed } from '../routes/types.ts';
import { type ConsoleKit, itemAction } from './kit.ts';
import { flowNotice, sameAccount } from './notices.ts';
import { type CreatedToken, connectionPage, connectionsPage } from './pages.ts';
import { ConnectForm, ConnectionsQuery, ConnectionTokenForm, IdParams, TokenOnlyForm } from './schemas.ts';

/** What a page with a token form shows: the token just made, or why none was. */
export type TokenOutcome = { created: CreatedToken | null; error: string | null; status: number };
const SHOWN: TokenOutcome = { created: null, error: null, status: 200 };

/** Creates a token from a token form, unless the expiry is not a number of days. */
export async function createFormToken(
  kit: ConsoleKit,
  request: FastifyRequest,
  connectionId: string,
  form: { name?: string | undefined; expires_in_days?: string | undefined },
): Promise<TokenOutcome> {
  const days = (form.expires_in_days ?? '').trim();
  if (days !== '' && !/^[0-9]{1,4}$/.test(days)) {
    const error = 'Expires in days must be a whole number of days (or empty for no expiry).';
    return { created: null, error, status: 400 };
  }
  const name = (form.name ?? '').trim().slice(0, 100);
  const c = await kit.ctx.admin.getConnection(connectionId);
  const { token, record } = await kit.ctx.admin.createToken({
    connectionId: c.id,
    name: name === '' ? null : name,
    expiresInDays: days === '' ? null : Number(days),
  });
  // Where clients reach the API: the region's public URL, else the address this browser used.
  const { publicUrls, region } = kit.ctx.config;
  const baseUrl = publicUrls[region] ?? `${request.protocol}://${request.host}`;
  const created = { token, prefix: record.prefix, connection: c.label ?? c.id, baseUrl };
  return { created, error: null, status: 201 };
}

export function connectFields(form: Static<typeof ConnectForm>) {
  const label = (form.label ?? '').trim();
  const loginHost = (form.login_host ?? '').trim();
  return {
    provider: form.provider.trim(),
    ...(label === '' ? {} : { label }),
    ...(loginHost === '' ? {} : { loginHost }),
  };
}

export function connectionRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const api = typed(scope);
  listRoutes(api, kit);
  oneConnectionRoutes(api, kit);
  connectFlowRoutes(api, kit);
}

/** The list of connections, and removing one from it. */
function listRoutes(api: ApiApp, kit: ConsoleKit): void {
  const { ctx } = kit;
  api.get('/console/connections', { schema: { querystring: ConnectionsQuery } }, async (request, reply) =>
    kit.send(
      reply,
      connectionsPage(
        kit.frame(request, reply, '/console/connections'),
        await ctx.admin.listConnections(),
        ctx.admin.connect.providers(),
        ctx.admin.connect.redirectUri(),
        flowNotice(request.query),
        sameAccount(await ctx.admin.connectionRecords()),
      ),
    ),
  );

  itemAction(
    api,
    '/console/connections/:id/remove',
    (id) => ctx.admin.removeConnection(id),
    '/console/connections',
  );
}

/** One connection's page: its tokens, recent requests and usage, and its token form. */
function oneConnectionRoutes(api: ApiApp, kit: ConsoleKit): void {
  const { ctx } = kit;
  const page = async (request: FastifyRequest, reply: FastifyReply, id: string, r = SHOWN) => {
    const [all, tokens, entries, usage, records] = await Promise.all([
      ctx.admin.listConnections(),
      ctx.admin.listTokens(id),
      ctx.admin.requests({ connection_id: id, limit: 20 }),
      ctx.admin.usage(168, id),
      ctx.admin.connectionRecords(),
    ]);
    const names = new Map(all.map((x) => [x.id, x]));
    const c = names.get(id) ?? (await ctx.admin.getConnection(id));
    const twinId = sameAccount(records).get(id);
    const twin = twinId === undefined ? null : { id: twinId, name: names.get(twinId)?.label ?? twinId };
    const frame = kit.frame(request, reply, '/console/connections');
    const extra = { twin, error: r.error };
    return kit.send(reply, connectionPage(frame, c, tokens, entries, usage[0]!, r.created, extra), r.status);
  };

  api.get('/console/connections/:id', { schema: { params: IdParams } }, async (request, reply) =>
    page(request, reply, request.params.id),
  );

  // A token made on a connection's page belongs to that connection, whatever else the form says.
  api.post(
    '/console/connections/:id/tokens',
    { schema: { params: IdParams, body: ConnectionTokenForm } },
    async (request, reply) => {
      const { id } = request.params;
      return page(request, reply, id, await createFormToken(kit, request, id, request.body));
    },
  );
}

/** Connect and Reconnect start the OAuth flow and send the browser to the consent page. */
function connectFlowRoutes(api: ApiApp, kit: ConsoleKit): void {
  const { ctx } = kit;
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
    const started = await ctx.admin.connect.begin({
      ...connectFields(request.body),
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
