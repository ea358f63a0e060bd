// A second baseline for pass-through: the lean forwarder's work (bench/lib/lean-forwarder.ts) done
// inside Fastify, as the service does it: one wildcard route per method, the body left unread for
// the upstream, the answer sent with `reply.send`. No logger, auth, checks or request log: the
// distance from the lean forwarder is what Fastify itself costs; the distance to the service is
// crm-proxy's own per-request work. Argument: the upstream URL. Prints one JSON line {url}; stops
// when stdin closes.
import type { OutgoingHttpHeaders } from 'node:http';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { serveForParent } from './child-server.ts';
import { passedOn } from './forward-headers.ts';

const upstream = process.argv[2];
if (upstream === undefined) throw new Error('usage: fastify-forwarder.ts UPSTREAM_URL');
const pool = new Pool(upstream, { connections: 64, keepAliveTimeout: 10_000 });
const PREFIX = '/v1/proxy';

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
app.route({
  method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  url: `${PREFIX}/*`,
  handler: async (request, reply) => {
    const headers = passedOn(request.headers) as Record<string, string>;
    headers['authorization'] = 'Bearer upstream-access-token';
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const answer = await pool.request({
      path: request.url.slice(PREFIX.length),
      method: request.method as 'GET',
      headers,
      body: hasBody ? request.raw : null,
    });
    reply.code(answer.statusCode).headers(passedOn(answer.headers) as OutgoingHttpHeaders);
    return reply.send(answer.body);
  },
});
await app.ready();
serveForParent(app.server, () => void pool.close());
