import { Type } from 'typebox';
import type { ParamDoc } from './route-doc.ts';

// OpenAPI text shared by the routes of durable writes (src/http/durable.ts).

const IDEMPOTENCY_KEY: ParamDoc = {
  name: 'Idempotency-Key',
  description:
    'A unique key per write (a UUID), up to 255 printable characters, scoped to the API token and kept 24 hours. A retry with the same key and the same request gets the first answer again, marked `Idempotent-Replayed: true`, without calling the CRM; with a different request it is `422 idempotency_key_reused`; while the first still runs, `409 idempotency_key_in_progress` with `Retry-After`.',
  schema: { type: 'string', maxLength: 255 },
};

const PREFER: ParamDoc = {
  name: 'Prefer',
  description:
    '`respond-async` (RFC 7240): answer `202` at once with the job and `Location: /v1/jobs/{id}`; follow the job there and read its results at `/v1/jobs/{id}/results`.',
  schema: { type: 'string', example: 'respond-async' },
};

export const DURABLE_WRITE_HEADERS: readonly ParamDoc[] = [IDEMPOTENCY_KEY, PREFER];
export const KEYED_WRITE_HEADERS: readonly ParamDoc[] = [IDEMPOTENCY_KEY];

export const DURABLE_WRITE_NOTE =
  'With `Prefer: respond-async`, an `Idempotency-Key`, or more than 200 records, the write runs as a durable job: it survives a restart of the service and a client that disconnects, and a synchronous answer carries the job id in `X-CRM-Proxy-Job-Id`. Records that a job cannot vouch for after a crash are answered `CRM_PROXY_OUTCOME_UNKNOWN` (check them in the CRM before sending them again), never sent twice.';

export const KEYED_WRITE_NOTE =
  'With an `Idempotency-Key`, the answer is stored when the write finishes, even if the client disconnected, and a retry with the key gets it without a CRM call. If the service stopped mid-write, the retry gets `409 idempotency_key_outcome_unknown`: check the CRM, then use a new key.';

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    state: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('completed'),
      Type.Literal('failed'),
      Type.Literal('cancelled'),
    ]),
    operation: Type.String({ description: '`insert`, `update` or `delete`.' }),
    object: Type.Union([Type.String(), Type.Null()]),
    interface: Type.Union([Type.String(), Type.Null()], {
      description: 'The write interface in use ({{crm.writeInterfaces}}); null before it is chosen.',
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
  { description: 'A durable write job.' },
);

export const ASYNC_WRITE_RESPONSE = {
  description:
    'Accepted (`Prefer: respond-async`): the job, with `Location: /v1/jobs/{id}` and `Preference-Applied: respond-async`.',
  schema: JobSchema,
};
