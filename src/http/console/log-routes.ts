// The request log (filtered, paged) and the usage chart.
import type { FastifyInstance } from 'fastify';
import { typed } from '../routes/types.ts';
import type { ConsoleKit } from './kit.ts';
import { REQUEST_PAGE, requestsPage, usagePage } from './pages.ts';
import { RequestsQuery } from './schemas.ts';

export function logRoutes(scope: FastifyInstance, kit: ConsoleKit): void {
  const { admin, config } = kit.ctx;
  const api = typed(scope);

  api.get('/console/requests', { schema: { querystring: RequestsQuery } }, async (request, reply) => {
    const q = request.query;
    // The schema lets '' through (an empty filter field): it means "any".
    const filter = {
      status: q.status ?? '',
      connection_id: q.connection_id ?? '',
      token_id: q.token_id ?? '',
      request_id: q.request_id ?? '',
    };
    const entries = await admin.requests({ ...q, status_class: filter.status, limit: REQUEST_PAGE });
    const frame = kit.frame(request, reply, '/console/requests');
    const [connections, tokens] = [await admin.listConnections(), await admin.listTokens()];
    return kit.send(reply, requestsPage(frame, entries, filter, connections, config.requestLogDays, tokens));
  });

  api.get('/console/usage', async (request, reply) => {
    const connections = await admin.listConnections();
    // Every connection has its series, zeros when it made no request.
    const usage = await admin.usage(
      168,
      undefined,
      connections.map((c) => c.id),
    );
    const byId = new Map(usage.map((u) => [u.connectionId, u]));
    const series = connections.map((c) => ({ connection: c, usage: byId.get(c.id)! }));
    return kit.send(reply, usagePage(kit.frame(request, reply, '/console/usage'), series));
  });
}
