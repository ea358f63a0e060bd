import type { FastifyInstance } from 'fastify';
import type { CallAccounting } from './accounting.ts';

/**
 * Salesforce refuses a request whose URI and headers together pass 16,384 bytes: 414 when the URI
 * alone does, else 431. The sandboxes answer the same way (HubSpot's edge has a similar limit), so
 * a client that puts too much into a URL meets the CRM's own answer in tests.
 */
export const MAX_URI_AND_HEADERS_BYTES = 16_384;

/** Node's own header limit, raised above the CRM's so that the check below decides. */
export const NODE_MAX_HEADER_SIZE = 64 * 1024;

/** Refused requests are counted as `refused.uri` (414) and `refused.headers` (431). */
export function enforceUriLimits(app: FastifyInstance, accounting: CallAccounting): void {
  app.addHook('onRequest', async (request, reply) => {
    const uri = Buffer.byteLength(request.raw.url ?? '');
    if (uri > MAX_URI_AND_HEADERS_BYTES) {
      accounting.record('refused.uri');
      return reply.code(414).type('text/html').send('<html><body>414 URI Too Long</body></html>');
    }
    let headers = 0;
    const raw = request.raw.rawHeaders;
    for (let i = 0; i < raw.length; i++) headers += Buffer.byteLength(raw[i] ?? '') + 2; // ": " or CRLF
    if (uri + headers > MAX_URI_AND_HEADERS_BYTES) {
      accounting.record('refused.headers');
      return reply
        .code(431)
        .type('text/html')
        .send('<html><body>431 Request Header Fields Too Large</body></html>');
    }
  });
}
