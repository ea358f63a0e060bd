import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { JobHook } from '../adapter.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { CrmError, callFailure } from '../errors.ts';

// What HubSpot's batch writes answer, mapped back to the records of the request.

/**
 * `associations` in an insert or upsert record, in HubSpot's own create-body shape
 * (`PublicAssociationsForObject[]`: `[{"to": {"id"}, "types": [{"associationCategory",
 * "associationTypeId"}]}]`), sent with the create as HubSpot takes it. HubSpot sets associations
 * only on create (its update and upsert bodies have none).
 * https://developers.hubspot.com/docs/api-reference/latest/crm/using-object-apis
 */
export interface CreateAssociation {
  to: { id: string };
  types: Array<{ associationCategory?: string; associationTypeId: number }>;
}

/** A record ready for HubSpot: its position in the request, its id (updates) and formatted values. */
export interface Prepared {
  index: number;
  id?: string;
  properties: Record<string, string>;
  /** Inserts only: HubSpot's create-body `associations`, sent as they came. */
  associations?: CreateAssociation[];
}

export interface BatchAnswer {
  results?: Array<{ id?: unknown; objectWriteTraceId?: unknown; new?: unknown }>;
  errors?: HubSpotErrorEntry[];
}

export interface HubSpotErrorEntry {
  category?: string;
  message?: string;
  context?: Record<string, unknown>;
  errors?: Array<{ code?: string; message?: string; context?: Record<string, unknown> }>;
}

export type Outcome = Map<number, SaveResult>;

export const fail = (statusCode: string, message: string, fields: string[] = []): RecordError => ({
  statusCode,
  message,
  fields,
});

/** A record HubSpot wrote. */
export const written = (id: string): SaveResult => ({ id, success: true, errors: [] });

/** A record that failed, with its id when it has one. */
export const failed = (id: string | undefined, errors: RecordError[]): SaveResult => ({
  ...(id === undefined ? {} : { id }),
  success: false,
  errors,
});

export const malformedId = (id: string, fields: string[] = []): RecordError =>
  fail('MALFORMED_ID', `"${id.slice(0, 50)}" is not a HubSpot record id (decimal digits).`, fields);

/** The list in slices of at most `size` (HubSpot's batch endpoints take 100 inputs). */
export function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** A record's result when HubSpot's answer named it nowhere. */
export const UNREPORTED = fail(
  'CRM_PROXY_NO_RESULT',
  "HubSpot's answer did not report on this record. Check it before sending it again.",
);

/** HubSpot's error entry as per-record errors: one per property error it lists, else its category. */
export function recordErrors(entry: HubSpotErrorEntry): RecordError[] {
  const inner = (entry.errors ?? []).filter((e) => typeof e.message === 'string');
  if (inner.length > 0) {
    return inner.map((e) => {
      const names = e.context?.['propertyName'];
      return fail(
        String(e.code ?? entry.category ?? 'ERROR'),
        String(e.message),
        Array.isArray(names) ? names.map(String) : [],
      );
    });
  }
  return [fail(String(entry.category ?? 'ERROR'), String(entry.message ?? 'HubSpot refused this record.'))];
}

/** Strings of a `context` key (`objectWriteTraceId`, `ids`, `fromObjectId`, …). */
export function contextList(entry: HubSpotErrorEntry, key: string): string[] {
  const v = entry.context?.[key];
  return Array.isArray(v) ? v.map(String) : [];
}

/**
 * A batch answer mapped back to request positions. Inputs carry their position as
 * `objectWriteTraceId`; results and failed inputs are found by it (HubSpot answers in no particular
 * order), failed updates HubSpot names only by id (`OBJECT_NOT_FOUND` with `context.ids`) by id.
 */
export function mapBatchAnswer(batch: Prepared[], body: BatchAnswer): Outcome {
  const byTrace = new Map(batch.map((p) => [String(p.index), p]));
  const byId = new Map(batch.flatMap((p) => (p.id === undefined ? [] : [[p.id, p] as const])));
  const out: Outcome = new Map();
  for (const r of body.results ?? []) {
    const input =
      (typeof r.objectWriteTraceId === 'string' ? byTrace.get(r.objectWriteTraceId) : undefined) ??
      byId.get(String(r.id));
    if (input === undefined || typeof r.id !== 'string') continue;
    out.set(input.index, written(r.id));
  }
  for (const entry of body.errors ?? []) {
    const named = [
      ...contextList(entry, 'objectWriteTraceId').map((t) => byTrace.get(t)),
      ...contextList(entry, 'ids').map((id) => byId.get(id)),
    ];
    for (const input of named) {
      if (input === undefined || out.get(input.index)?.success === true) continue;
      const previous = out.get(input.index)?.errors ?? [];
      out.set(input.index, failed(input.id, [...previous, ...recordErrors(entry)]));
    }
  }
  return out;
}

/** A whole-call refusal that names a record's values (nothing was written): worth splitting the batch. */
export function namesRecordValues(response: OutboundResponse): boolean {
  if (response.status === 409) return true;
  if (response.status !== 400) return false;
  const body = parseJson<HubSpotErrorEntry>(response);
  return (
    (body?.errors ?? []).some((e) => Array.isArray(e.context?.['propertyName'])) ||
    String(body?.message ?? '').startsWith('Property values were not valid') ||
    // A bad association (unknown type, missing target) refuses the whole create as well.
    /association/i.test(String(body?.message ?? ''))
  );
}

/**
 * The entry each record (or association link) of a call that failed as a whole gets. Association
 * calls are resent like reads, so a link's entry only says the call failed.
 */
export function failedCall(error: unknown, what: string, subject: 'record' | 'link' = 'record'): RecordError {
  if (error instanceof ApiError && error.code === 'crm_rate_limited') {
    return fail(
      'CRM_RATE_LIMITED',
      `${error.message} Nothing was written for this ${subject}; send it again.`,
    );
  }
  if (subject === 'link' && error instanceof CrmError) {
    return fail(
      `HTTP_${error.status ?? 'ERROR'}`,
      `The ${what} call to HubSpot failed (${error.message}); check the association before sending it again.`,
    );
  }
  const own = (body: unknown) =>
    isRecord(body) ? { code: body['category'], message: body['message'] } : undefined;
  const entry = callFailure('HubSpot', error, what, own);
  if (entry === undefined) throw error;
  return entry;
}

/** Results in request order; a record HubSpot's answers never named is answered UNREPORTED. */
export function inOrder(count: number, outcome: Outcome, prepared: Prepared[]): SaveResult[] {
  const ids = new Map(prepared.map((p) => [p.index, p.id]));
  return Array.from({ length: count }, (_, i) => outcome.get(i) ?? failed(ids.get(i), [UNREPORTED]));
}

/** Counts of a job's records as batches finish, reported to the job when there is one. */
export function progressOf(job: JobHook | undefined) {
  const counts = { processed: 0, succeeded: 0, failed: 0 };
  return (results: Iterable<SaveResult>) => {
    if (job === undefined) return;
    for (const r of results) {
      counts.processed++;
      if (r.success) counts.succeeded++;
      else counts.failed++;
    }
    job.progress({ ...counts });
  };
}
