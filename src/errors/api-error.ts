import { ERROR_STATUS, type ErrorCode } from './codes.ts';

/** A failing field, a limit, or the CRM's own error. */
export type ErrorDetail = Record<string, unknown>;

export interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers (`Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type of the API: the message says how to fix it; a 5xx one never carries internal text. */
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
