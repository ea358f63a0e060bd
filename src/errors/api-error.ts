import { ERROR_STATUS, type ErrorCode } from './codes.ts';

/** One entry of `error.details`: a failing field, a limit, or the CRM's own error. */
export type ErrorDetail = Record<string, unknown>;

export interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After` on a 429 or `Allow` on a 405. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error type of the API. The status comes from the code (codes.ts); the message says what
 * went wrong and how to fix it. For 5xx codes the message is written by us, never internal text.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}
