// /metrics on its own port (loopback by default), so the API's load balancer never exposes it;
// an optional bearer token guards it beyond loopback.
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config/index.ts';
import type { Metrics } from './lib/metrics.ts';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const sent = Buffer.from(/^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1] ?? '');
  const want = Buffer.from(token);
  return sent.length === want.length && timingSafeEqual(sent, want);
}

/** Listens on `config.port` (a metrics port is configured whenever there are metrics). */
export async function startMetricsListener(
  metrics: Metrics,
  config: Config['metrics'],
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"code":"not_found","message":"Only GET /metrics is served here."}}');
      return;
    }
    if (config.token !== undefined && !tokenMatches(req.headers.authorization, config.token)) {
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
        .end(
          '{"error":{"code":"unauthorized","message":"Send Authorization: Bearer <CRM_PROXY_METRICS_TOKEN>."}}',
        );
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  server.listen(config.port, config.host);
  // Rejects with the listen error (a port in use).
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
