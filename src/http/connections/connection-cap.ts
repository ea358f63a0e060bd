import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerLimits } from '../../config/index.ts';

/** `::ffff:10.0.0.1` and `10.0.0.1` are the same client. */
function clientAddress(socket: Socket): string {
  const raw = (socket.remoteAddress ?? '').toLowerCase();
  return raw.startsWith('::ffff:') && raw.includes('.') ? raw.slice(7) : raw;
}

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address.startsWith('127.');
}

export interface ConnectionCapEvents {
  /** A connection was closed at once: its address already holds the cap. */
  refused(address: string, open: number): void;
}

/**
 * At most `maxConnectionsPerClient` open sockets per client address; one more is destroyed before
 * a byte is read, so a client cannot hold every slot of `maxConnections` by itself. Behind a
 * reverse proxy every connection comes from the proxy's address: exempt it (or set the cap to 0).
 * Loopback is exempt by default (local tools, tests, a proxy on the same host).
 */
export function enforceConnectionCaps(
  server: Server,
  limits: Pick<ServerLimits, 'maxConnections' | 'maxConnectionsPerClient' | 'connectionCapExempt'>,
  events: ConnectionCapEvents,
): { openFrom(address: string): number } {
  server.maxConnections = limits.maxConnections;
  const open = new Map<string, number>();
  const cap = limits.maxConnectionsPerClient;
  const exempt = new Set(limits.connectionCapExempt.addresses);
  if (cap > 0) {
    // Before Node's own listener, so a refused socket never reaches the HTTP parser's work.
    server.prependListener('connection', (socket: Socket) => {
      const address = clientAddress(socket);
      if (exempt.has(address) || (limits.connectionCapExempt.loopback && isLoopbackAddress(address))) return;
      const count = open.get(address) ?? 0;
      if (count >= cap) {
        socket.destroy();
        events.refused(address, count);
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }
  return { openFrom: (address) => open.get(address) ?? 0 };
}
