import { STATUS_CODES } from 'node:http';
import { type TSchema, Type } from 'typebox';
import { ERROR_CODES, ERROR_STATUS } from '../../errors/index.ts';

// What the routes answer (`schema.response`), serialized and documented alike. Shared schemas have
// an `$id`, added once (`SHARED_SCHEMAS`). Records stay open: what the CRM sends passes as it is.

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Unsafe<string>({
        type: 'string',
        enum: ERROR_CODES,
        description: 'Stable snake_case code.',
      }),
      message: Type.String({ description: 'What went wrong and how to fix it.' }),
      details: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    }),
    request_id: Type.String({ description: 'Also in the X-Request-Id header.' }),
  },
  { $id: 'Error', description: 'Request-level failure.' },
);

const RecordError = Type.Object(
  { statusCode: Type.String(), message: Type.String(), fields: Type.Array(Type.String()) },
  { additionalProperties: true },
);

// Every key is optional: a record that was not created has no `id` where its CRM gives none, and
// the serializer writes required keys first, so a required key after `id` would move it last.
export const RecordResult = Type.Object(
  {
    id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'The record id; null or absent for a record that was not created or matched.',
      }),
    ),
    success: Type.Optional(Type.Boolean()),
    errors: Type.Optional(Type.Array(RecordError)),
  },
  {
    $id: 'RecordResult',
    additionalProperties: true,
    description: 'Per-record result, in the order sent; errors keep Salesforce’s own entries.',
  },
);

const JobSchema = Type.Object(
  {
    id: Type.String(),
    state: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    operation: Type.String({ description: '`insert`, `update` or `delete`.' }),
    object: Type.Union([Type.String(), Type.Null()]),
    interface: Type.Union([Type.String(), Type.Null()], {
      description: 'The write interface in use, as the CRM names it; null before it is chosen.',
    }),
    counts: Type.Object({
      total: Type.Integer(),
      processed: Type.Integer(),
      succeeded: Type.Integer(),
      failed: Type.Integer(),
    }),
    crm_job_ids: Type.Array(Type.String(), { description: "The CRM's own job ids (Bulk API 2.0 jobs)." }),
    cancel_requested: Type.Boolean(),
    created_at: Type.String(),
    started_at: Type.Union([Type.String(), Type.Null()]),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    updated_at: Type.String(),
    error: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'When the job failed as a whole: the error the synchronous request would have got.',
    }),
    results_url: Type.String(),
  },
  { $id: 'Job', description: 'A durable write job.' },
);

export const SHARED_SCHEMAS = [ErrorBody, JobSchema, RecordResult];

/** A reference to a shared schema (`Job`, `RecordResult`), with the description of the answer that uses it. */
export const ref = (id: string, description?: string) =>
  Type.Unsafe<unknown>({ $ref: id, ...(description === undefined ? {} : { description }) });

/** The answer `{data: …}`. */
export const dataAnswer = (schema: TSchema, description: string) =>
  Type.Object({ data: schema }, { description });

/** `{data: [per-record result]}`, the answer of every write. */
export const WriteResults = (description: string) => dataAnswer(Type.Array(ref('RecordResult')), description);

/** A success answer with no JSON body (HTML, a stream, or nothing). */
export const noBody = (description: string) => Type.Unsafe<unknown>({ type: 'null', description });

export const ASYNC_WRITE_ANSWER = ref(
  'Job',
  'Accepted (`Prefer: respond-async`): the job, with `Location: /v1/jobs/{id}` and `Preference-Applied: respond-async`.',
);

/** What each error status means, shown once in the document's description. */
export const ERROR_DESCRIPTIONS: Record<number, string> = {
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
const ALWAYS = [401, 403, 405, 408, 429, 431, 500];

/** The error answer of one status: the shared error body, with an example per code it can carry. */
function errorAnswer(status: number) {
  const codes = ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
  return {
    description: `${STATUS_CODES[status] ?? 'Error'}: the code and message say which failure (see the document's description).`,
    content: {
      'application/json': {
        schema: ref('Error'),
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

/**
 * A route's `schema.response`: its successes, and the errors of `errors` and of every route. Unknown:
 * handlers answer as the CRMs shaped it, which the schemas describe but the compiler cannot check.
 */
export function answers(success: Record<number, TSchema>, errors: number[]): unknown {
  const statuses = [...new Set([...errors, ...ALWAYS])].sort();
  return { ...success, ...Object.fromEntries(statuses.map((s) => [s, errorAnswer(s)])) };
}
