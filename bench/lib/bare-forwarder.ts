// The baseline for pass-through: the least a forwarder in Node can do. node:http in front, an
// undici Pool to the upstream behind, bodies streamed both ways, a credential header injected,
// nothing else (no auth, logging, checks or metrics). Argument: the upstream URL.
// Prints one JSON line {url}; stops when stdin closes.
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { serveForParent } from './child-server.ts';

const upstream = process.argv[2];
if (upstream === undefined) throw new Error('usage: bare-forwarder.ts UPSTREAM_URL');
const pool = new Pool(upstream, { connections: 64, keepAliveTimeout: 10_000 });
const PREFIX = '/v1/proxy';

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const path = url.startsWith(PREFIX) ? url.slice(PREFIX.length) : url;
  const headers: Record<string, string> = { authorization: 'Bearer upstream-access-token' };
  const type = req.headers['content-type'];
  if (type !== undefined) headers['content-type'] = type;
  const length = req.headers['content-length'];
  if (length !== undefined) headers['content-length'] = length;
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  pool
    .request({
      path,
      method: req.method as 'GET',
      headers,
      body: hasBody ? req : null,
    })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (
          value !== undefined &&
          name !== 'connection' &&
          name !== 'keep-alive' &&
          name !== 'transfer-encoding'
        )
          out[name] = value;
      }
      res.writeHead(answer.statusCode, out);
      await pipeline(answer.body, res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
serveForParent(server, () => void pool.close());
