import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerLimits } from '../../config/index.ts';
import { clientTimeouts, serverTimeoutOptions } from './client-timeouts.ts';
import { enforceConnectionCaps } from './connection-cap.ts';

/**
 * Every bound on inbound connections: the Fastify options to build the app with, and `attach`
 * for what needs the built app (hooks, the idle timer, the connection caps).
 */
export function connectionLimits(limits: ServerLimits, logger: Logger) {
  const timeouts = clientTimeouts(limits, logger);
  const log = logger.child({ component: 'connections' });
  let lastWarning = Number.NEGATIVE_INFINITY;
  let refusedSinceWarning = 0;
  return {
    options: { ...serverTimeoutOptions(limits), clientErrorHandler: timeouts.clientErrorHandler },
    attach(app: FastifyInstance): void {
      timeouts.register(app);
      enforceConnectionCaps(app.server, limits, {
        refused(address, open) {
          // At most one line a minute: a client hammering the cap must not flood the log.
          refusedSinceWarning++;
          const now = performance.now();
          if (now - lastWarning < 60_000) return;
          log.warn(
            { address, open, refused: refusedSinceWarning, cap: limits.maxConnectionsPerClient },
            'connections refused: client address holds CRM_PROXY_MAX_CONNECTIONS_PER_CLIENT',
          );
          lastWarning = now;
          refusedSinceWarning = 0;
        },
      });
    },
  };
}
