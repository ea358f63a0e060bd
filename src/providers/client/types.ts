import type { Readable } from 'node:stream';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutboundRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** A stream is given as a function that makes it for each attempt. */
  body?: string | Buffer | (() => Readable);
  /** True when resending cannot apply anything twice (GET, POSTs that only read): decides what is retried. */
  idempotent: boolean;
  /** For logs: `salesforce.collections.retrieve`. */
  label: string;
  timeoutMs?: number;
  /** The caller paces its calls and handles 429 itself: a 429 is returned at once. */
  ownRateLimit?: boolean;
  /** Takes a 2xx body as it arrives instead of buffering it into `text` (then empty); once per attempt. */
  read?: (body: Readable) => Promise<void>;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  attempts: number;
}

/** One attempt as reported to call hooks; the URL is redacted. */
export interface CallEvent {
  label: string;
  method: HttpMethod;
  url: string;
  attempt: number;
  durationMs: number;
  status?: number;
  failure?: string;
  retry?: { waitMs: number; reason: string };
}

export type CallHook = (event: CallEvent) => void;

/** The request never got an HTTP answer (after retries). */
export class OutboundNetworkError extends Error {
  readonly kind: 'connect_failed' | 'timeout' | 'connection_dropped';
  readonly attempts: number;

  constructor(kind: OutboundNetworkError['kind'], attempts: number, cause: unknown) {
    super(`outbound call failed: ${kind}`, { cause });
    this.name = 'OutboundNetworkError';
    this.kind = kind;
    this.attempts = attempts;
  }
}

export function headerValue(headers: OutboundResponse['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function parseJson<T>(response: OutboundResponse): T | undefined {
  if (response.text === '') return undefined;
  try {
    return JSON.parse(response.text) as T;
  } catch {
    return undefined;
  }
}
