import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Browser security headers for the scope this is registered in (the console's pages; the API's
 * JSON answers do not get them). Helmet's defaults, except: the page's own Content-Security-Policy
 * with none of helmet's default directives (its `upgrade-insecure-requests` would break a console
 * served over plain http), framing refused outright (`DENY`), and no `Strict-Transport-Security`
 * (a host-wide choice for whoever runs the TLS proxy, not for one path of the service).
 * Answers are not cached unless the route says otherwise: pages show tokens and links once.
 */
export async function registerSecurityHeaders(
  scope: FastifyInstance,
  options: { csp: Record<string, string[]> },
): Promise<void> {
  await scope.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: options.csp },
    frameguard: { action: 'deny' },
    strictTransportSecurity: false,
  });
  scope.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
