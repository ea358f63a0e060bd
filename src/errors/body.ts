import { ApiError } from './api-error.ts';

/** Wire shape of every request-level failure: `{error: {code, message, details}, request_id}`. */
export interface ErrorBody {
  error: { code: string; message: string; details: Array<Record<string, unknown>> };
  request_id: string;
}

const INTERNAL_MESSAGE =
  'The service failed while handling this request. Retry later; if it persists, report the request_id.';

/** Anything that is not an ApiError is a bug: a 500 whose body carries no internal text. */
export function toErrorBody(error: unknown, requestId: string): { status: number; body: ErrorBody } {
  const apiError = error instanceof ApiError ? error : new ApiError('internal_error', INTERNAL_MESSAGE);
  return {
    status: apiError.status,
    body: {
      error: { code: apiError.code, message: apiError.message, details: apiError.details },
      request_id: requestId,
    },
  };
}
