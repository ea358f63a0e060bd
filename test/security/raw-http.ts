import { connect } from 'node:net';

/**
 * A deliberately dumb HTTP/1.1 client over a plain socket, so a request reaches the server exactly
 * as written: invalid UTF-8 in the path, headers or body, duplicate headers, any Content-Type, a
 * Content-Length that lies. Fetch and undici validate (and so repair) most of that before sending.
 */
export interface RawRequest {
  method: string;
  /** Request target, written as is (latin1 for a string: one byte per char). */
  path: string | Buffer;
  /** Written in order, duplicates included. Host and Connection: close are added unless present. */
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer;
  /** Content-Length is written for a body unless false (or a header already sets it). */
  contentLength?: boolean;
  /** The socket is destroyed and `timedOut` set after this long without a complete answer. */
  timeoutMs?: number;
}

export interface RawAnswer {
  /** 0 when no status line came back. */
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
  timedOut: boolean;
  /** A socket error seen before the answer was complete (an early answer may still be present). */
  socketError?: string;
}

export function header(answer: RawAnswer, name: string): string | undefined {
  return answer.headers.get(name.toLowerCase())?.[0];
}

function writeRequest(req: RawRequest, host: string): Buffer {
  const headers = req.headers ?? [];
  const has = (name: string) => headers.some(([h]) => h.toLowerCase() === name);
  const lines: Buffer[] = [
    Buffer.concat([
      Buffer.from(`${req.method} `, 'latin1'),
      Buffer.from(req.path),
      Buffer.from(' HTTP/1.1\r\n'),
    ]),
  ];
  if (!has('host')) lines.push(Buffer.from(`Host: ${host}\r\n`));
  if (!has('connection')) lines.push(Buffer.from('Connection: close\r\n'));
  for (const [name, value] of headers) {
    lines.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.from(value), Buffer.from('\r\n')]));
  }
  if (req.body !== undefined && req.contentLength !== false && !has('content-length')) {
    lines.push(Buffer.from(`Content-Length: ${req.body.length}\r\n`));
  }
  lines.push(Buffer.from('\r\n'));
  return Buffer.concat(lines);
}

function decodeChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(all: Buffer, method: string): Omit<RawAnswer, 'timedOut'> {
  // Skip interim answers (100 Continue).
  let raw = all;
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) {
    const end = raw.indexOf('\r\n\r\n');
    if (end === -1) break;
    raw = raw.subarray(end + 4);
  }
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return { status: 0, headers: new Map(), body: Buffer.alloc(0) };
  const [statusLine = '', ...headerLines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map<string, string[]>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const rest = raw.subarray(headEnd + 4);
  if (method === 'HEAD' || status === 204 || status === 304)
    return { status, headers, body: Buffer.alloc(0) };
  if (headers.get('transfer-encoding')?.some((v) => v.toLowerCase().includes('chunked')))
    return { status, headers, body: decodeChunked(rest) };
  const length = headers.get('content-length')?.[0];
  return { status, headers, body: length === undefined ? rest : rest.subarray(0, Number(length)) };
}

/** Sends one request on a fresh connection and reads the answer until the server closes it. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let socketError: string | undefined;
    let settled = false;
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseAnswer(Buffer.concat(chunks), req.method);
      resolve({ ...parsed, timedOut, ...(socketError === undefined ? {} : { socketError }) });
    };
    const timer = setTimeout(() => finish(true), req.timeoutMs ?? 30_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish(false));
    socket.on('close', () => finish(false));
    // A server that answers early (413, 431) and closes while the body is still being written
    // resets the socket: keep what it answered.
    socket.on('error', (err) => {
      socketError = err.message;
      finish(false);
    });
    socket.on('connect', () => {
      socket.write(writeRequest(req, url.host));
      if (req.body !== undefined && req.body.length > 0) socket.write(req.body);
    });
  });
}
