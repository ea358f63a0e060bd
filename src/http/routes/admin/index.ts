import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type TSchema, Type } from 'typebox';
import type { OperatorService } from '../../../admin/operators.ts';
import type { AdminService } from '../../../admin/service.ts';
import { ApiError } from '../../../errors/index.ts';
import { wholeNumber } from '../../../lib/whole-number.ts';
import { answers, dataAnswer as data, noBody } from '../../schemas/answers.ts';
import { type ApiApp, typed } from '../types.ts';
import {
  ConnectionView,
  ConnectLink,
  CreatedLink,
  CreateLinkBody,
  CreateTokenBody,
  IdParams,
  RequestEntry,
  RequestsQuery,
  TokenView,
  UsageQuery,
  UsageSeries,
} from './schemas.ts';

/** An admin route's options: its OpenAPI operation (Admin tag, operator key), answers and inputs. */
const doc = <I extends { params?: TSchema; querystring?: TSchema; body?: TSchema }>(
  operationId: string,
  summary: string,
  description: string,
  success: Record<number, TSchema>,
  errors: number[] = [],
  input: I = {} as I,
) => ({
  schema: {
    operationId,
    summary,
    description,
    tags: ['Admin'],
    security: [{ operatorKey: [] }],
    response: answers(success, errors),
    ...input,
  },
});

/** A whole-number query parameter from 1 to `max`, else a 400 naming it. */
function bounded(raw: string | undefined, name: string, fallback: number, max: number): number {
  const n = wholeNumber(raw, fallback, max);
  if (n === null)
    throw new ApiError('invalid_value', `${name} must be from 1 to ${max}.`, { details: [{ field: name }] });
  return n;
}

/** Connections. */
function connectionRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connections',
    doc(
      'adminListConnections',
      'List connections',
      'Every connection with its status (active, needs re-auth, failing with its last error), created and last used, and the CRM account’s daily API allowance where the CRM reports it.',
      { 200: data(Type.Array(ConnectionView), 'The connections.') },
    ),
    async () => ({ data: await admin.listConnections() }),
  );
  api.get(
    '/v1/admin/connections/:id',
    doc(
      'adminGetConnection',
      'Get a connection',
      'One connection, as listed.',
      { 200: data(ConnectionView, 'The connection.') },
      [400, 404],
      { params: IdParams },
    ),
    async (request) => ({ data: await admin.getConnection(request.params.id) }),
  );
  api.delete(
    '/v1/admin/connections/:id',
    doc(
      'adminDeleteConnection',
      'Remove a connection',
      'Removes the connection and every API token of it; its stored credentials are deleted.',
      { 204: noBody('Removed.') },
      [400, 404],
      { params: IdParams },
    ),
    async (request, reply) => {
      await admin.removeConnection(request.params.id);
      return reply.code(204).send();
    },
  );
}

/** A connection's API tokens. */
function tokenRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connections/:id/tokens',
    doc(
      'adminListTokens',
      'List a connection’s API tokens',
      'Prefix, label, created, last used, expiry and state of each token; never the token.',
      { 200: data(Type.Array(TokenView), 'The tokens.') },
      [400, 404],
      { params: IdParams },
    ),
    async (request) => ({ data: await admin.listTokens(request.params.id) }),
  );
  api.post(
    '/v1/admin/connections/:id/tokens',
    doc(
      'adminCreateToken',
      'Create an API token',
      'Creates an API token for the connection. The token is in this answer only: store it now.',
      {
        201: Type.Object(
          { token: Type.String(), data: TokenView },
          { description: 'The token (shown once) and its record.' },
        ),
      },
      [400, 404, 415],
      { params: IdParams, body: CreateTokenBody },
    ),
    async (request, reply) => {
      const body = request.body ?? {};
      const { token, record } = await admin.createToken({
        connectionId: request.params.id,
        name: body.name ?? null,
        expiresInDays: body.expires_in_days ?? null,
      });
      return reply.code(201).send({ token, data: record });
    },
  );
  api.delete(
    '/v1/admin/tokens/:id',
    doc(
      'adminRevokeToken',
      'Revoke an API token',
      'Revokes the token at once, on every instance sharing the store. Revoking a revoked token answers it again.',
      { 200: data(TokenView, 'The revoked token.') },
      [400, 404],
      { params: IdParams },
    ),
    async (request) => ({ data: await admin.revokeToken(request.params.id) }),
  );
}

/** One-time connect links. */
function connectLinkRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connect-links',
    doc(
      'adminListConnectLinks',
      'List connect links',
      'One-time links that let an account owner connect their CRM account (created, expiry, used, revoked).',
      { 200: data(Type.Array(ConnectLink), 'The links.') },
      [503],
    ),
    async () => ({ data: await admin.connect.listLinks() }),
  );
  api.post(
    '/v1/admin/connect-links',
    doc(
      'adminCreateConnectLink',
      'Create a connect link',
      'A one-time link for an account owner: it opens the CRM’s consent page and creates the connection. It works once and expires.',
      { 201: data(CreatedLink, 'The link.') },
      [400, 415, 503],
      { body: CreateLinkBody },
    ),
    async (request, reply) => {
      const b = request.body;
      const link = await admin.connect.createLink({
        provider: b.provider,
        ...(b.label === undefined ? {} : { label: b.label }),
        ...(b.login_host === undefined ? {} : { loginHost: b.login_host }),
        ...(b.ttl_hours === undefined ? {} : { ttlMs: b.ttl_hours * 3600_000 }),
      });
      return reply.code(201).send({ data: link });
    },
  );
  api.delete(
    '/v1/admin/connect-links/:id',
    doc(
      'adminRevokeConnectLink',
      'Revoke a connect link',
      'The link stops working at once.',
      { 204: noBody('Revoked.') },
      [400, 404, 503],
      { params: IdParams },
    ),
    async (request, reply) => {
      await admin.connect.revokeLink(request.params.id);
      return reply.code(204).send();
    },
  );
}

/** The request log and usage by hour, newest first, filtered as the console filters them. */
function requestLogRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/requests',
    doc(
      'adminListRequests',
      'Query the request log',
      'Answered API requests, newest first: time, method, path, status, latency, CRM calls spent, interface used, request id, token and connection. Bodies are never stored. Entries are kept `CRM_PROXY_REQUEST_LOG_DAYS` days (7).',
      { 200: data(Type.Array(RequestEntry), 'The entries.') },
      [400],
      { querystring: RequestsQuery },
    ),
    async (request) => {
      const limit = bounded(request.query.limit, 'limit', 100, 1000);
      return { data: await admin.requests({ ...request.query, limit }) };
    },
  );
  api.get(
    '/v1/admin/usage',
    doc(
      'adminUsage',
      'Requests and errors per hour',
      'Per connection, one value per hour, oldest first: requests, and errors (answers with status 400 or more).',
      { 200: data(Type.Array(UsageSeries), 'One series per connection.') },
      [400],
      { querystring: UsageQuery },
    ),
    async (request) => {
      const hours = bounded(request.query.hours, 'hours', 168, 168);
      return { data: await admin.usage(hours, request.query.connection_id) };
    },
  );
}

/** The console's AdminService for scripts, behind operator API keys (`crmpk_…`), never API tokens. */
export const adminRoutes = fp(
  async (
    app: FastifyInstance,
    services: { operators: Pick<OperatorService, 'verifyKey'>; admin: AdminService },
  ) => {
    app.addHook('onRequest', async (request) => {
      const found = await services.operators.verifyKey(request.headers.authorization);
      if (found !== null) return;
      const missing = (request.headers.authorization ?? '').trim() === '';
      throw new ApiError(
        missing ? 'missing_token' : 'unknown_token',
        'The admin API takes an operator API key: "Authorization: Bearer crmpk_…", created with `./bin/crm-proxy.mjs operators key create --email …`. API tokens of connections are not accepted here.',
        { headers: { 'www-authenticate': 'Bearer realm="crm-proxy-admin"' } },
      );
    });
    const api = typed(app);
    connectionRoutes(api, services.admin);
    tokenRoutes(api, services.admin);
    connectLinkRoutes(api, services.admin);
    requestLogRoutes(api, services.admin);
  },
  { name: 'admin-routes', encapsulate: true, dependencies: ['error-handling', 'json-parser', 'openapi'] },
);
