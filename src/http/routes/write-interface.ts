import type { FastifyRequest } from 'fastify';

/**
 * The write interface a request forces with `X-CRM-Proxy-Interface`, as sent; undefined lets the
 * service choose. Which values are valid is the connection's CRM's to say (checked by the operation).
 */
export function requestedInterface(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-crm-proxy-interface'];
  return Array.isArray(raw) ? raw[0] : raw;
}
