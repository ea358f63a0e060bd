import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../errors/index.ts';
import { ErrorResponse } from '../schemas/common.ts';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed JSON, invalid body (every failing field is named), a limit exceeded (`too_many_records`, `too_many_ids`, `too_many_fields`, `field_name_too_long`, `query_too_long`), `invalid_value` (a field value of the wrong shape), `unknown_field` (with the closest real field), `invalid_query` (the CRM’s message), `invalid_cursor`, `invalid_field_definition`, `missing_match_value`, `target_not_allowed`, `invalid_path` (a malformed %-escape in the URL), `invalid_idempotency_key` (empty, over 255 characters or with control characters) or `malformed_request` (not valid HTTP/1.1; the connection is closed).',
  401: 'Missing, malformed or unknown API token.',
  403: 'Revoked or expired API token, or a token of the other region (`wrong_region`): 403 is about the client’s own token only.',
  404: 'Unknown route or unknown object, or `job_not_found`: no job of this token has that id.',
  405: 'Wrong HTTP method for this path.',
  408: '`request_timeout`: the headers or the body did not arrive within the service’s time limits (the message names the limit); the connection is closed.',
  409: '`field_already_exists`: the CRM already has a field of that name; `idempotency_key_in_progress`: a request with the same `Idempotency-Key` is still running (retry after `Retry-After`; a job-backed one names its job in `details`); `idempotency_key_outcome_unknown`: the first request with the key was interrupted before its answer was stored (check the CRM, then use a new key); `job_not_finished`: the job has no results yet.',
  413: 'Request body too large.',
  415: 'The body is not JSON.',
  431: '`headers_too_large`: the request headers exceed the server’s limit.',
  422: "`idempotency_key_reused`: the `Idempotency-Key` was used with a different request. `operation_not_available`: the connection's CRM does not offer this operation (the message names what it offers), or `object_not_supported`: the object is announced but not supported yet.",
  429: "`rate_limited`: the service's own rate limit, or `crm_rate_limited`: the CRM's limit once the service's retries are spent; see `Retry-After`.",
  500: 'Internal failure; the body carries no internal detail.',
  502: "The CRM failed or could not be reached after retries; the CRM's own error is in `details`.",
  503: '`connection_needs_reauth`: the CRM no longer accepts the connection’s credentials; `crm_scope_missing`: the CRM connection was not granted a scope the operation needs (the message names it; the operator connects the account again and grants it); `connection_plain_http`: in production, the connection reaches its CRM over plain http (the message names the field and the fix) and nothing was sent; `service_unavailable`: the service is shutting down.',
};

// Any route can answer these: token checks, method, rate limit, inbound time and header limits.
export const ALWAYS = [401, 403, 405, 408, 429, 431, 500];

/** One error body per code (its message and details), and the request id they show. */
export interface ErrorExamples {
  errors: Record<ErrorCode, { message: string; details?: Array<Record<string, unknown>> }>;
  requestId: string;
}

/** The error model as components: the body schema, one example per code, one response per status. */
export function errorComponents(statuses: Set<number>, samples: ErrorExamples) {
  const examples: Record<string, unknown> = {};
  for (const code of ERROR_CODES) {
    const { message, details } = samples.errors[code];
    examples[code] = {
      summary: `${ERROR_STATUS[code]} ${code}`,
      value: { error: { code, message, details: details ?? [] }, request_id: samples.requestId },
    };
  }
  const responses: Record<string, unknown> = {};
  for (const status of [...statuses].sort()) {
    const codes = ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
    responses[`Error${status}`] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]),
          ),
        },
      },
    };
  }
  const error = ErrorResponse as unknown as { properties: { error: { properties: object } } };
  const schema = {
    ...error,
    properties: {
      ...error.properties,
      error: {
        ...error.properties.error,
        properties: {
          ...error.properties.error.properties,
          code: { type: 'string', enum: ERROR_CODES, description: 'Stable snake_case code.' },
        },
      },
    },
  };
  return { examples, responses, schema };
}
