import { Type } from 'typebox';

// The headers of durable and keyed writes, documented only: the route checks them with its own codes.

const IdempotencyKey = Type.Optional(
  Type.String({
    description:
      'A unique key per write (a UUID), up to 255 printable characters, scoped to the API token and kept 24 hours. A retry with the same key and the same request gets the first answer again, marked `Idempotent-Replayed: true`, without calling the CRM; with a different request it is `422 idempotency_key_reused`; while the first still runs, `409 idempotency_key_in_progress` with `Retry-After`.',
  }),
);

const Prefer = Type.Optional(
  Type.String({
    description:
      '`respond-async` (RFC 7240): answer `202` at once with the job and `Location: /v1/jobs/{id}`; follow the job there and read its results at `/v1/jobs/{id}/results`.',
    examples: ['respond-async'],
  }),
);

export const DurableWriteHeaders = Type.Object({ 'Idempotency-Key': IdempotencyKey, Prefer });
export const KeyedWriteHeaders = Type.Object({ 'Idempotency-Key': IdempotencyKey });

export const DURABLE_WRITE_NOTE =
  'With `Prefer: respond-async`, an `Idempotency-Key`, or more than 200 records, the write runs as a durable job: it survives a restart of the service and a client that disconnects, and a synchronous answer carries the job id in `X-CRM-Proxy-Job-Id`. Records that a job cannot vouch for after a crash are answered `CRM_PROXY_OUTCOME_UNKNOWN` (check them in the CRM before sending them again), never sent twice. When the CRM applied a write but its answer was lost, records that carry a unique key (a contact’s email, a property or external id field with unique values, or the upsert’s match field) are looked up first: found, they are answered written with their ids; absent, `CRM_PROXY_NOT_WRITTEN` (nothing was written: send them again).';

export const KEYED_WRITE_NOTE =
  'With an `Idempotency-Key`, the answer is stored when the write finishes, even if the client disconnected, and a retry with the key gets it without a CRM call. If the service stopped mid-write, the retry gets `409 idempotency_key_outcome_unknown`: check the CRM, then use a new key.';
