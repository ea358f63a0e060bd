import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import type { WriteInterface } from '../../providers/salesforce/facet.ts';

/**
 * The Salesforce interface a write request forces with `X-CRM-Proxy-Interface`, or undefined to
 * let the service choose by size. Shared by the insert, update and delete routes.
 */
export function requestedInterface(request: FastifyRequest): WriteInterface | undefined {
  const raw = request.headers['x-crm-proxy-interface'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  if (value === 'collections' || value === 'bulk2') return value;
  throw new ApiError(
    'invalid_body',
    'The X-CRM-Proxy-Interface request header takes "collections" or "bulk2" (or leave it out to let the service choose).',
    { details: [{ path: 'header:x-crm-proxy-interface', value: value.slice(0, 50) }] },
  );
}
