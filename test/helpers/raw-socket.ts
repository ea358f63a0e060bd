// A client that speaks HTTP/1.1 byte by byte over node:net, to behave as slowly as a test needs.
import { connect, type Socket } from 'node:net';

export interface RawClient {
  socket: Socket;
  /** Everything the server has sent so far. */
  received(): string;
  isClosed(): boolean;
  /** Resolves once the server has closed the connection; fails after `deadlineMs` (a hang guard, not a measure). */
  closed(deadlineMs: number, what: string): Promise<void>;
  write(data: string): void;
}

export async function openRaw(baseUrl: string): Promise<RawClient> {
  const url = new URL(baseUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.setNoDelay(true);
  const chunks: Buffer[] = [];
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset is one way for the server to close; the test looks at what was answered.
  socket.on('error', () => {});
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('connection closed before it opened')));
  });
  return {
    socket,
    received: () => Buffer.concat(chunks).toString('utf8'),
    isClosed: () => isClosed,
    closed(deadlineMs, what) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the server did not close: ${what}`)), deadlineMs);
      });
      return Promise.race([closedPromise, deadline]).finally(() => clearTimeout(timer));
    },
    write(data) {
      if (!socket.destroyed) socket.write(data);
    },
  };
}

export interface ParsedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first HTTP answer in `raw` (status line, headers, and whatever body followed). */
export function parseAnswer(raw: string): ParsedAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) throw new Error(`no complete HTTP answer in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
}

/** Request head for `path` with the given headers; the body (if any) is written separately. */
export function requestHead(method: string, path: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
