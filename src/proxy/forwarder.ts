import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { traceOutbound } from '../lib/call-context.ts';
import type { HttpMethod } from '../providers/client/types.ts';

export interface ForwarderOptions {
  /** Longest wait for the CRM's response headers; beyond it the target counts as unreachable. */
  headersTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/** Longest silence while a response body streams. */
const BODY_TIMEOUT_MS = 300_000;

export interface ForwardRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body: Readable | Buffer | undefined;
}

export interface ForwardResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & { arrayBuffer(): Promise<ArrayBuffer>; dump(): Promise<void> };
  /** True once the CRM's last body byte has arrived (all of it may still be unread in `body`). */
  arrived(): boolean;
}

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;

/** Notes when the answer's last byte has arrived (undici has no public flag); passed as the request's `opaque`. */
class Arrival implements Handler {
  done = false;
  inner: Handler | undefined;

  onRequestStart(controller: Controller, context: unknown): void {
    this.inner?.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Handler['onRequestUpgrade']>>): void {
    this.inner?.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Handler['onResponseStart']>>): void {
    this.inner?.onResponseStart?.(...args);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.inner?.onResponseData?.(controller, chunk);
  }

  onResponseEnd(
    controller: Controller,
    trailers: Parameters<NonNullable<Handler['onResponseEnd']>>[1],
  ): void {
    this.done = true;
    this.inner?.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.inner?.onResponseError?.(controller, error);
  }
}

function markingArrival(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (opts, handler) => {
    // `opaque` is request()'s own pass-along field; the dispatch options' type leaves it out.
    const arrival = (opts as { opaque?: unknown }).opaque;
    if (!(arrival instanceof Arrival)) return dispatch(opts, handler);
    arrival.inner = handler;
    return dispatch(opts, arrival);
  };
}

/** The target never gave an HTTP answer (refused, DNS, TLS, reset, timeout before headers). */
export class TargetUnreachableError extends Error {
  readonly code: string;

  constructor(code: string, cause: unknown) {
    super(`the target could not be reached (${code})`, { cause });
    this.name = 'TargetUnreachableError';
    this.code = code;
  }
}

// A URL the WHATWG parser would keep as it is: split by this regex, without a parse per request.
const PLAIN_URL =
  /^(https?:\/\/[a-z0-9.-]+(?::\d+)?)(\/(?:[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*[A-Za-z0-9\-._~!$&()*+,;=:@/%])?)?$/;

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps socket and TLS errors; the code may sit on a cause.
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** Origin and path as undici's own `request(url)` takes them from a URL. */
function urlParts(url: string): { origin: string; path: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

/** Streams one request to a CRM on its own pool, never following redirects (credentials stay on one host). */
export class ProxyForwarder {
  readonly #agent: Dispatcher;
  readonly #headersTimeoutMs: number;

  constructor(options: ForwarderOptions = {}) {
    this.#headersTimeoutMs = options.headersTimeoutMs ?? 120_000;
    this.#agent = new Agent({
      connections: 64,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: 10_000,
    }).compose(markingArrival);
  }

  async send(req: ForwardRequest): Promise<ForwardResponse> {
    // The span ends with the answer's headers: the body streams on to the client afterwards.
    const span = traceOutbound(req.method, req.url);
    try {
      const plain = PLAIN_URL.exec(req.url);
      const { origin, path } =
        plain === null ? urlParts(req.url) : { origin: plain[1] ?? '', path: plain[2] ?? '/' };
      const arrival = new Arrival();
      const res = await this.#agent.request({
        origin,
        path,
        method: req.method,
        headers: span === undefined ? req.headers : { ...req.headers, ...span.headers },
        body: req.body ?? null,
        headersTimeout: this.#headersTimeoutMs,
        bodyTimeout: BODY_TIMEOUT_MS,
        opaque: arrival,
      });
      span?.end(res.statusCode);
      return { status: res.statusCode, headers: res.headers, body: res.body, arrived: () => arrival.done };
    } catch (error) {
      span?.end(undefined, error);
      const code = errorCode(error);
      if (code !== undefined) throw new TargetUnreachableError(code, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
