import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  request,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { Provider } from '../../src/store/types.ts';
import type { Stack } from '../helpers/stack.ts';

/** A loopback listener that only counts connections: anything reaching it is a leak. */
export async function startDecoy(t: TestContext): Promise<{ port: number; connections(): number }> {
  let connections = 0;
  const server = createNetServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, connections: () => connections };
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export type TargetHandler = (req: Readable & SeenRequest, res: ServerResponse) => void;

/** An HTTP target the test controls (used as a sandbox connection's host). */
export async function startTarget(
  t: TestContext,
  handler: TargetHandler,
): Promise<{ url: string; port: number; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createHttpServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req as Readable & SeenRequest, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, port: address.port, seen };
}

/** A sandbox connection of `provider` whose API host is `url`, and an API token for it. */
export async function connectionTo(s: Stack, provider: Provider, url: string): Promise<string> {
  const created = await s.ctx.connections.create({
    provider,
    label: `test ${provider} target`,
    instanceUrl: provider === 'salesforce' ? url : null,
    apiBaseUrl: url,
    sandbox: true,
    credentials:
      provider === 'hubspot'
        ? { kind: 'private_app', token: 'pat-test-token' }
        : { kind: 'oauth', refreshToken: 'refresh-test', accessToken: 'sf-access-test' },
  });
  if (!created.ok) throw new Error(created.message);
  const token = await s.ctx.auth.createToken({ connectionId: created.connection.id });
  if (!token.ok) throw new Error(token.message);
  return token.token;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Sends `path` byte for byte (fetch would normalise `..`, backslashes and encodings away).
 * `body` may be a function that writes the body itself (to pace a streamed upload).
 */
export function rawCall(
  baseUrl: string,
  path: string,
  options: {
    method?: string;
    token?: string;
    headers?: Record<string, string>;
    body?: string | Buffer | ((write: (chunk: Buffer) => Promise<void>) => Promise<void>);
  } = {},
): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? 'GET',
        path,
        headers: {
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const body = options.body;
    if (typeof body === 'function') {
      const write = (chunk: Buffer) =>
        new Promise<void>((done, fail) => req.write(chunk, (error) => (error ? fail(error) : done())));
      body(write).then(() => req.end(), reject);
    } else {
      req.end(body);
    }
  });
}

/** Resolves when `check()` holds; the deadline only guards against a hang, it measures nothing. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
