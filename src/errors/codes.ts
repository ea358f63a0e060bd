/**
 * The closed set of request-level error codes and the one table from code to
 * HTTP status. A code that is missing here fails to compile (`satisfies`).
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_body: 400,
  invalid_object_name: 400,
  unknown_field: 400,
  too_many_records: 400,
  too_many_ids: 400,
  target_not_allowed: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  invalid_field_definition: 400,
  missing_match_value: 400,
  field_name_too_long: 400,
  too_many_fields: 400,
  invalid_value: 400,
  query_too_long: 400,
  invalid_path: 400,
  malformed_request: 400,
  invalid_idempotency_key: 400,
  missing_token: 401,
  malformed_token: 401,
  unknown_token: 401,
  revoked_token: 403,
  expired_token: 403,
  crm_scope_missing: 503,
  wrong_region: 403,
  not_found: 404,
  job_not_found: 404,
  unknown_object: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  field_already_exists: 409,
  idempotency_key_in_progress: 409,
  idempotency_key_outcome_unknown: 409,
  job_not_finished: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  operation_not_available: 422,
  object_not_supported: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  crm_rate_limited: 429,
  internal_error: 500,
  crm_error: 502,
  crm_unreachable: 502,
  connection_needs_reauth: 503,
  connection_plain_http: 503,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}
