import { Type } from 'typebox';
import type { AdminService } from '../../../admin/service.ts';
import type { ApiApp } from '../types.ts';
import { data, doc } from './doc.ts';
import { ConnectionView, IdParams, TokenView } from './schemas.ts';

/** `/v1/admin/connections`: list, read and remove connections. */
export function connectionRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connections',
    {
      schema: doc(
        'adminListConnections',
        'List connections',
        'Every connection with its status (active, needs re-auth, failing with its last error), created and last used, and the CRM account’s daily API allowance where the CRM reports it.',
        { '200': { description: 'The connections.', schema: data(Type.Array(ConnectionView)) } },
      ),
    },
    async () => ({ data: await admin.listConnections() }),
  );
  api.get(
    '/v1/admin/connections/:id',
    {
      schema: {
        ...doc(
          'adminGetConnection',
          'Get a connection',
          'One connection, as listed.',
          { '200': { description: 'The connection.', schema: data(ConnectionView) } },
          [400, 404],
        ),
        params: IdParams,
      },
    },
    async (request) => ({ data: await admin.getConnection(request.params.id) }),
  );
  api.delete(
    '/v1/admin/connections/:id',
    {
      schema: {
        ...doc(
          'adminDeleteConnection',
          'Remove a connection',
          'Removes the connection and every API token of it; its stored credentials are deleted.',
          { '204': { description: 'Removed.' } },
          [400, 404],
        ),
        params: IdParams,
      },
    },
    async (request, reply) => {
      await admin.removeConnection(request.params.id);
      return reply.code(204).send();
    },
  );
}

/** API tokens of a connection: list, create, revoke. */
export function tokenRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connections/:id/tokens',
    {
      schema: {
        ...doc(
          'adminListTokens',
          'List a connection’s API tokens',
          'Prefix, label, created, last used, expiry and state of each token; never the token.',
          { '200': { description: 'The tokens.', schema: data(Type.Array(TokenView)) } },
          [400, 404],
        ),
        params: IdParams,
      },
    },
    async (request) => ({ data: await admin.listTokens(request.params.id) }),
  );
  api.post(
    '/v1/admin/connections/:id/tokens',
    {
      schema: {
        ...doc(
          'adminCreateToken',
          'Create an API token',
          'Creates an API token for the connection. The token is in this answer only: store it now.',
          {
            '201': {
              description: 'The token (shown once) and its record.',
              schema: Type.Object({ token: Type.String(), data: TokenView }),
            },
          },
          [400, 404, 415],
        ),
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(
              Type.String({ minLength: 1, maxLength: 100, description: 'A label for the token.' }),
            ),
            expires_in_days: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 3650, description: 'No expiry when absent.' }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
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
    {
      schema: {
        ...doc(
          'adminRevokeToken',
          'Revoke an API token',
          'Revokes the token at once, on every instance sharing the store. Revoking a revoked token answers it again.',
          { '200': { description: 'The revoked token.', schema: data(TokenView) } },
          [400, 404],
        ),
        params: IdParams,
      },
    },
    async (request) => ({ data: await admin.revokeToken(request.params.id) }),
  );
}
