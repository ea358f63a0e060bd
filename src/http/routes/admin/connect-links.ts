import { Type } from 'typebox';
import type { AdminService } from '../../../admin/service.ts';
import type { ApiApp } from '../types.ts';
import { data, doc } from './doc.ts';
import { ConnectLink, IdParams } from './schemas.ts';

/** `/v1/admin/connect-links`: list and create one-time connect links. */
export function connectLinkRoutes(api: ApiApp, admin: AdminService): void {
  api.get(
    '/v1/admin/connect-links',
    {
      schema: doc(
        'adminListConnectLinks',
        'List connect links',
        'One-time links that let an account owner connect their CRM account (created, expiry, used, revoked).',
        { '200': { description: 'The links.', schema: data(Type.Array(ConnectLink)) } },
        [503],
      ),
    },
    async () => ({ data: await admin.listLinks() }),
  );
  api.post(
    '/v1/admin/connect-links',
    {
      schema: {
        ...doc(
          'adminCreateConnectLink',
          'Create a connect link',
          'A one-time link for an account owner: it opens the CRM’s consent page and creates the connection. It works once and expires.',
          {
            '201': {
              description: 'The link.',
              schema: data(
                Type.Object(
                  { id: Type.String(), url: Type.String(), expiresAt: Type.String() },
                  { additionalProperties: true },
                ),
              ),
            },
          },
          [400, 415, 503],
        ),
        body: Type.Object(
          {
            provider: Type.String({
              pattern: '^[a-z][a-z0-9_-]{0,39}$',
              description: 'The id of a registered CRM, as connections show it in `provider`.',
            }),
            label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            login_host: Type.Optional(
              Type.String({
                maxLength: 200,
                description: 'The login host, for a CRM that takes one (see its connect documentation).',
              }),
            ),
            ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'Default 24.' })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const b = request.body;
      const link = await admin.createLink({
        provider: b.provider,
        ...(b.label === undefined ? {} : { label: b.label }),
        ...(b.login_host === undefined ? {} : { loginHost: b.login_host }),
        ...(b.ttl_hours === undefined ? {} : { ttlMs: b.ttl_hours * 3600_000 }),
      });
      return reply.code(201).send({ data: link });
    },
  );
}

/** `DELETE /v1/admin/connect-links/{id}`: revoke a link not used yet. */
export function revokeLinkRoute(api: ApiApp, admin: AdminService): void {
  api.delete(
    '/v1/admin/connect-links/:id',
    {
      schema: {
        ...doc(
          'adminRevokeConnectLink',
          'Revoke a connect link',
          'The link stops working at once.',
          { '204': { description: 'Revoked.' } },
          [400, 404, 503],
        ),
        params: IdParams,
      },
    },
    async (request, reply) => {
      await admin.revokeLink(request.params.id);
      return reply.code(204).send();
    },
  );
}
