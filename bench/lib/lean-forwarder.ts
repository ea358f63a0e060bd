// The baseline for pass-through: a lean forwarder in Node doing the essential work of crm-proxy's
// pass-through and nothing else. node:http in front, an undici Pool to the upstream behind; the
// request's headers go on less hop-by-hop ones and the client's credentials, with the upstream's
// credential injected; the request body streams to the upstream; the answer's headers come back
// less hop-by-hop ones and cookies, and its body is written to the client chunk by chunk (a
// `for await` loop honouring backpressure; `stream.pipeline` per answer, as an earlier baseline did,
// cost it a third of its throughput on a small GET). No auth, target checks, logging or metrics: what those cost is what the
// benchmark measures. Argument: the upstream URL. Prints one JSON line {url}; stops when stdin closes.
import { createServer, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { serveForParent } from './child-server.ts';
import { passedOn } from './forward-headers.ts';

const upstream = process.argv[2];
if (upstream === undefined) throw new Error('usage: lean-forwarder.ts UPSTREAM_URL');
const pool = new Pool(upstream, { connections: 64, keepAliveTimeout: 10_000 });
const PREFIX = '/v1/proxy';

async function writeAnswer(res: ServerResponse, body: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of body) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
      if (res.destroyed) throw new Error('client gone');
    }
  }
  res.end();
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const path = url.startsWith(PREFIX) ? url.slice(PREFIX.length) : url;
  const headers = passedOn(req.headers) as Record<string, string>;
  headers['authorization'] = 'Bearer upstream-access-token';
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  pool
    .request({ path, method: req.method as 'GET', headers, body: hasBody ? req : null })
    .then(async (answer) => {
      res.writeHead(answer.statusCode, passedOn(answer.headers) as OutgoingHttpHeaders);
      try {
        await writeAnswer(res, answer.body);
      } catch {
        answer.body.destroy();
        res.destroy();
      }
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
serveForParent(server, () => void pool.close());
