import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { CrmError, callFailure } from '../errors.ts';

/** A create's `associations`, in HubSpot's create-body shape (HubSpot sets them only on create). */
export interface CreateAssociation {
  to: { id: string };
  types: Array<{ associationCategory?: string; associationTypeId: number }>;
}

/** A record ready for HubSpot: its position in the request, its id (updates) and formatted values. */
export interface Prepared {
  index: number;
  id?: string;
  properties: Record<string, string>;
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

export const written = (id: string): SaveResult => ({ id, success: true, errors: [] });

export const failed = (id: string | undefined, errors: RecordError[]): SaveResult => ({
  ...(id === undefined ? {} : { id }),
  success: false,
  errors,
});

export const malformedId = (id: string, fields: string[] = []): RecordError =>
  fail('MALFORMED_ID', `"${id.slice(0, 50)}" is not a HubSpot record id (decimal digits).`, fields);

/** The list in slices of at most `size`. */
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

/** HubSpot answers in no order: results mapped back by `objectWriteTraceId`, or by id (failed updates). */
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
 * The entry of each record (or link) of a failed call; link calls are resent like reads, so a link's
 * entry only says the call failed.
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
