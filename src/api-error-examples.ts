import { JOB_ID } from './api-examples.ts';
import type { ErrorExamples } from './http/plugins/openapi-errors.ts';

// One error body per error code, shown in the OpenAPI document's error components (see
// api-examples.ts for why the examples live beside the composition root).

/** One error body per code: the message shape the service answers with, and its details. */
export const ERROR_EXAMPLES: ErrorExamples['errors'] = {
  invalid_json: {
    message: 'The request body is not valid JSON: Unexpected token } in JSON at position 12.',
  },
  invalid_body: {
    message: 'The request body is invalid: /data/0/id is required. Send {"data": [{"id": "…", …}]}.',
    details: [{ path: '/data/0/id', message: 'is required' }],
  },
  invalid_object_name: {
    message:
      'The object name in the path is not a valid API name. Use a name such as Account, Invoice__c, contacts or 0-1.',
    details: [{ path: '/object_name', value: 'Acc ount' }],
  },
  unknown_field: {
    message: 'Account has no field "Nmae". Did you mean "Name"?',
    details: [{ path: '/data/0/Nmae', field: 'Nmae', suggestion: 'Name' }],
  },
  too_many_records: {
    message: 'At most 10000 records per request; this one has 10001. Send them as several requests.',
    details: [{ path: '/data', limit: 10000, count: 10001 }],
  },
  too_many_ids: {
    message:
      'At most 100 ids per request on this connection; this one has 150. Send them as several requests.',
    details: [{ path: '/data/ids', limit: 100, count: 150 }],
  },
  target_not_allowed: {
    message:
      'The pass-through target https://example.com/ is not on this connection’s API host. Use a path such as /services/data/… or the instance URL.',
    details: [{ path: '/target_url' }],
  },
  invalid_query: {
    message: "The CRM refused the query: unexpected token: 'FORM'.",
    details: [{ errorCode: 'MALFORMED_QUERY', message: "unexpected token: 'FORM'" }],
  },
  invalid_cursor: {
    message:
      'The cursor is not one this service handed out. Pass `next_cursor` of the previous page as it is.',
    details: [{ path: '/cursor' }],
  },
  invalid_field_definition: {
    message: 'A Text field needs a length from 1 to 255: add "length".',
    details: [{ path: '/data/length', message: 'required for Text' }],
  },
  missing_match_value: {
    message:
      'The record has no value for its match key External_Id__c; upsert needs it to find the record to update.',
    details: [{ path: '/data/0/External_Id__c', match_key: 'External_Id__c' }],
  },
  field_name_too_long: {
    message: 'Field names are at most 255 characters; /data/0 has a longer one.',
    details: [{ path: '/data/0', limit: 255 }],
  },
  too_many_fields: {
    message: 'A record has at most 1000 fields; /data/0 has 1200.',
    details: [{ path: '/data/0', limit: 1000, count: 1200 }],
  },
  invalid_value: {
    message: 'AnnualRevenue of /data/0 must be a number; it is the string "lots".',
    details: [{ path: '/data/0/AnnualRevenue', expected: 'number' }],
  },
  query_too_long: {
    message: 'The query takes 20480 bytes once URL-encoded; at most 14336 fit. Shorten it or split it.',
    details: [{ path: '/data', limit: 14336, bytes: 20480 }],
  },
  invalid_path: {
    message: 'The URL has a malformed %-escape. Encode "%" as %25.',
  },
  malformed_request: {
    message: 'The request is not valid HTTP/1.1; the connection is closed.',
  },
  invalid_idempotency_key: {
    message: 'The Idempotency-Key header must be 1 to 255 printable characters (a UUID per write).',
    details: [{ path: 'header:idempotency-key' }],
  },
  missing_token: {
    message: 'No API token: send "Authorization: Bearer crmp_…".',
  },
  malformed_token: {
    message: 'The Authorization header does not hold an API token of the form crmp_{region}_….',
  },
  unknown_token: {
    message:
      'This API token is not known to this service. Check it, or create one with `./bin/crm-proxy.mjs tokens create`.',
  },
  revoked_token: {
    message: 'This API token was revoked. Create a new one for the connection.',
  },
  expired_token: {
    message: 'This API token expired at 2026-03-01T00:00:00.000Z. Create a new one for the connection.',
  },
  crm_scope_missing: {
    message:
      'HubSpot refused: this connection was not granted the scope account-info.security.read, which audit_logs needs (HubSpot offers audit logs on Enterprise accounts). The operator connects the account again (Reconnect in the console, or a connect link) and grants it.',
    details: [{ provider: 'hubspot', status: 403, required_scopes: ['account-info.security.read'] }],
  },
  wrong_region: {
    message: 'This API token belongs to the us region; call https://us.crm-proxy.example instead.',
    details: [{ region: 'us', base_url: 'https://us.crm-proxy.example' }],
  },
  not_found: {
    message: 'There is no route GET /v1/objects. The API reference is at /docs.',
  },
  job_not_found: {
    message: `This API token has no job ${JOB_ID}. GET /v1/jobs lists its jobs (finished jobs are kept 7 days by default).`,
  },
  unknown_object: {
    message: 'The connected org has no object named "Acount". POST /v1/describe lists the objects it has.',
    details: [{ path: '/object_name', value: 'Acount' }],
  },
  method_not_allowed: {
    message: 'GET is not allowed on /v1/object/get/Account; use POST.',
  },
  request_timeout: {
    message:
      'The request body did not arrive within 300000 ms (CRM_PROXY_REQUEST_TIMEOUT_MS); the connection is closed.',
  },
  field_already_exists: {
    message: 'Account already has a field Tier__c.',
    details: [{ path: '/data/name', value: 'Tier' }],
  },
  idempotency_key_in_progress: {
    message:
      'A request with this Idempotency-Key is still running. Retry after Retry-After, or follow its job.',
    details: [{ job_id: JOB_ID }],
  },
  idempotency_key_outcome_unknown: {
    message:
      'The first request with this Idempotency-Key was interrupted before its answer was stored. Check the CRM, then use a new key.',
  },
  job_not_finished: {
    message: `Job ${JOB_ID} is running; its results are readable once it has finished. Follow it at GET /v1/jobs/${JOB_ID}.`,
  },
  body_too_large: {
    message:
      'The request body is larger than 8388608 bytes (CRM_PROXY_BODY_LIMIT_BYTES). Send several requests.',
  },
  unsupported_media_type: {
    message: 'Send the body as JSON with "Content-Type: application/json".',
  },
  headers_too_large: {
    message: 'The request headers exceed the server’s limit.',
  },
  operation_not_available: {
    message:
      'This connection’s CRM does not offer soql. It offers: insert, update, upsert, delete, get, query, describe.',
    details: [{ operation: 'soql' }],
  },
  object_not_supported: {
    message: 'associations cannot be read with get; use POST /v1/object/associations/{object}.',
  },
  idempotency_key_reused: {
    message: 'This Idempotency-Key was used with a different request. Use a new key for a new write.',
  },
  rate_limited: {
    message: 'This API token sent more than 200 requests per second. Retry after Retry-After seconds.',
  },
  crm_rate_limited: {
    message:
      'The CRM’s rate limit is reached and the service’s retries are spent. Retry after Retry-After seconds.',
  },
  internal_error: {
    message:
      'The service failed while handling this request. Retry later; if it persists, report the request_id.',
  },
  crm_error: {
    message: 'The CRM answered 500 after 3 attempts.',
    details: [{ status: 500, body: { message: 'Internal Server Error' } }],
  },
  crm_unreachable: {
    message: 'The CRM could not be reached after 3 attempts (connect timeout).',
  },
  connection_needs_reauth: {
    message: 'The CRM no longer accepts this connection’s credentials. Reconnect it in the console.',
  },
  connection_plain_http: {
    message:
      'Connection conn_5Wq8ZrT1 (hubspot) reaches its CRM over plain http (apiBaseUrl http://10.0.0.5:8080), so nothing was sent. With NODE_ENV=production a CRM is reached over https only (--sandbox included): use an https:// URL, or set CRM_PROXY_ALLOW_PLAIN_HTTP_CRM=true if the CRM sits on a private network you trust. To use https, remove the connection and add it again with an https:// apiBaseUrl.',
    details: [{ field: 'apiBaseUrl', url: 'http://10.0.0.5:8080' }],
  },
  service_unavailable: {
    message: 'The service is shutting down. Retry on another instance.',
  },
};
