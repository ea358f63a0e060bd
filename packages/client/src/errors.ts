// Failures as one typed error: the service's error body, the HTTP status and `Retry-After`.
import type { components } from './schema.ts';

/** Request-level failure body: `{error: {code, message, details}, request_id}`. */
export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['error']['code'];

/** Every failure the service answers: the error body's fields, the HTTP status and `Retry-After`. */
export class CrmProxyError extends Error {
  override readonly name = 'CrmProxyError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Array<Record<string, unknown>>;
  readonly requestId: string;
  /** Seconds from `Retry-After` (429, 409 in progress, 503), when the service sent it. */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: ErrorBody, retryAfter?: number) {
    super(body.error.message);
    this.status = status;
    this.code = body.error.code;
    this.details = body.error.details;
    this.requestId = body.request_id;
    this.retryAfter = retryAfter;
  }

  /** The error of a failed answer; a body that is not the service's error shape still gives one. */
  static from(response: Response, body: unknown): CrmProxyError {
    const retry = Number(response.headers.get('retry-after'));
    const requestId = response.headers.get('x-request-id') ?? '';
    const shaped = isErrorBody(body)
      ? body
      : {
          error: {
            code: 'internal_error' as ErrorCode,
            message: `HTTP ${response.status} without an error body${typeof body === 'string' && body !== '' ? `: ${body.slice(0, 200)}` : ''}`,
            details: [],
          },
          request_id: requestId,
        };
    return new CrmProxyError(
      response.status,
      shaped,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/** openapi-fetch's answer: the data, or the failure as a CrmProxyError. */
export function unwrap<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || !answer.response.ok)
    throw CrmProxyError.from(answer.response, answer.error);
  return answer.data as T;
}
