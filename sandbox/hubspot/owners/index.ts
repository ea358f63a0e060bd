import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { hubspotError, sendHubSpotError } from '../errors.ts';
import { archivedParam } from '../objects/http.ts';

type Query = Record<string, unknown>;

/** Default and largest page (crm-owners-v3: `limit` default 100; HubSpot caps it at 500). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;

/**
 * Owners API v3 (read-only): the portal's users and queues that records can be assigned to.
 * Paging cursor: the position of the next owner, as an opaque string.
 */
export function registerOwnersRoutes(app: FastifyInstance, ctx: HubSpotContext): void {
  const list = async (req: { query: Query; url: string }) => {
    const q = req.query;
    const email = typeof q['email'] === 'string' ? q['email'].toLowerCase() : undefined;
    const limit = Math.min(Math.max(Number(q['limit'] ?? DEFAULT_LIMIT) || DEFAULT_LIMIT, 1), MAX_LIMIT);
    const after = Math.max(Number(q['after'] ?? 0) || 0, 0);
    const all = ctx.portal.owners
      .list({ archived: archivedParam(q['archived']) })
      .filter((o) => email === undefined || o.email.toLowerCase() === email);
    const results = all.slice(after, after + limit);
    if (after + limit >= all.length) return { results };
    const next = String(after + limit);
    const link = new URL(req.url, ctx.baseUrl());
    link.searchParams.set('after', next);
    return { results, paging: { next: { after: next, link: link.toString() } } };
  };
  // @hubspot/api-client 13.5 calls `/crm/v3/owners/` (trailing slash); the docs write `/crm/v3/owners`.
  app.get<{ Querystring: Query }>('/crm/v3/owners', { config: { kind: 'owners.list' } }, list);
  app.get<{ Querystring: Query }>('/crm/v3/owners/', { config: { kind: 'owners.list' } }, list);

  app.get<{ Params: { ownerId: string }; Querystring: Query }>(
    '/crm/v3/owners/:ownerId',
    { config: { kind: 'owners.get' } },
    async (req, reply) => {
      const archived = archivedParam(req.query['archived']);
      const { ownerId } = req.params;
      const owner =
        req.query['idProperty'] === 'userId'
          ? ctx.portal.owners.getByUserId(Number(ownerId), { archived })
          : ctx.portal.owners.get(ownerId, { archived });
      if (owner !== undefined) return owner;
      return sendHubSpotError(
        reply,
        404,
        hubspotError({ message: `Owner ${ownerId} not found`, category: 'OBJECT_NOT_FOUND' }),
      );
    },
  );
}
