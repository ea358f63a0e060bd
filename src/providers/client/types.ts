import type { Readable } from 'node:stream';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutboundRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** A stream is given as the function that makes it, called for each attempt. */
  body?: string | Buffer | (() => Readable);
  /**
   * True when resending cannot apply anything twice (GET, and POSTs that only read such as
   * Salesforce's collections retrieve). Decides which failures are retried.
   */
  idempotent: boolean;
  /** What the call is, for logs: `salesforce.collections.retrieve`. */
  label: string;
  timeoutMs?: number;
  /** The caller paces its calls and handles 429 itself (HubSpot): a 429 is returned at once, not retried. */
  ownRateLimit?: boolean;
  /**
   * Takes a 2xx answer's body as it arrives (a large result file), instead of it being buffered
   * into `text`, which is then empty. Called once per attempt: a retried attempt starts it again.
   */
  read?: (body: Readable) => Promise<void>;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body text. */
  readonly text: string;
  attempts: number;
}

/** One attempt as reported to call hooks (logging, metrics). URLs are already redacted. */
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

/** The CRM could not be reached (after retries): the request never got an HTTP answer. */
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
