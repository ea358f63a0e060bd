import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import type { CrmSession } from '../adapter.ts';
import { OutboundNetworkError, parseJson } from '../client/types.ts';
import { CrmError, crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import type { PreparedRecord, RecordError, SaveOperation, SaveResult } from './facet.ts';
import { toCollectionsRecord } from './format.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** One call's records failed as a whole: each gets this entry, and the call's error is kept. */
export interface ChunkFailure {
  error: unknown;
}

/**
 * sObject Collections create/update/delete, 200 records per call, `allOrNone=false`, calls in
 * parallel under the connection's limiter. Never resent after a timeout, a dropped connection or
 * a 5xx (the client's `decide()`): Salesforce may have applied the call, and a resent create would
 * write the records twice. Those records are answered failed with an entry saying so.
 */
export async function collectionsWrite(
  session: CrmSession,
  limiter: ConcurrencyLimiter,
  apiVersion: string,
  operation: SaveOperation | 'delete',
  objectName: string | null,
  items: PreparedRecord[] | string[],
): Promise<{ results: SaveResult[]; failures: ChunkFailure[] }> {
  const size = SALESFORCE_PROFILE.collectionsMaxRecords;
  const results: SaveResult[] = new Array(items.length);
  const failures: ChunkFailure[] = [];
  const calls: Promise<void>[] = [];
  for (let start = 0; start < items.length; start += size) {
    const chunk = items.slice(start, start + size);
    calls.push(
      limiter.run(async () => {
        let answered: SaveResult[];
        try {
          answered = await oneCall(session, apiVersion, operation, objectName, chunk);
        } catch (error) {
          failures.push({ error });
          const entry = failedCallEntry(error, operation);
          answered = chunk.map(() => ({ success: false, errors: [entry] }));
        }
        answered.forEach((r, k) => {
          results[start + k] = r;
        });
      }),
    );
  }
  await Promise.all(calls);
  return { results, failures };
}

async function oneCall(
  session: CrmSession,
  apiVersion: string,
  operation: SaveOperation | 'delete',
  objectName: string | null,
  chunk: PreparedRecord[] | string[],
): Promise<SaveResult[]> {
  const base = `${session.baseUrl}${SALESFORCE_PROFILE.dataPath(apiVersion)}/composite/sobjects`;
  const request =
    operation === 'delete'
      ? {
          method: 'DELETE' as const,
          url: `${base}?ids=${(chunk as string[]).map(encodeURIComponent).join(',')}&allOrNone=false`,
        }
      : {
          method: operation === 'insert' ? ('POST' as const) : ('PATCH' as const),
          url: base,
          body: JSON.stringify({
            allOrNone: false,
            records: (chunk as PreparedRecord[]).map((r) => toCollectionsRecord(objectName ?? '', r)),
          }),
        };
  const response = await unreachableAsCrmError('salesforce', `collections ${operation}`, () =>
    session.send({
      ...request,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      // A write: resent only when the connection never opened (see decide()).
      idempotent: false,
      label: `salesforce.collections.${operation}`,
    }),
  );
  const body = parseJson<SaveResult[]>(response);
  if (response.status !== 200 || !Array.isArray(body) || body.length !== chunk.length) {
    throw crmErrorFromResponse('salesforce', response, `collections ${operation}`);
  }
  return body.map(normalizeResult);
}

/** Salesforce's entry as is, with `id` omitted rather than null on failures. */
export function normalizeResult(r: SaveResult & { id?: string | null }): SaveResult {
  const errors = Array.isArray(r.errors) ? r.errors.map(normalizeError) : [];
  return typeof r.id === 'string' && r.id !== ''
    ? { id: r.id, success: r.success === true, errors }
    : { success: r.success === true, errors };
}

function normalizeError(e: Partial<RecordError> & { errorCode?: string }): RecordError {
  return {
    statusCode: String(e.statusCode ?? e.errorCode ?? 'UNKNOWN_EXCEPTION'),
    message: String(e.message ?? ''),
    fields: Array.isArray(e.fields) ? e.fields.map(String) : [],
  };
}

/** True when a failed call got no answer after it was sent (timeout, dropped connection). */
export function mayHaveApplied(error: unknown): boolean {
  if (!(error instanceof CrmError) || error.kind !== 'unreachable') return false;
  return !(error.cause instanceof OutboundNetworkError && error.cause.kind === 'connect_failed');
}

/** The entry given to each record of a call that failed as a whole. */
export function failedCallEntry(error: unknown, operation: string): RecordError {
  if (error instanceof CrmError && error.kind === 'unreachable' && !mayHaveApplied(error)) {
    return {
      statusCode: 'CRM_PROXY_NOT_SENT',
      message: `The ${operation} call could not reach Salesforce (${error.message}); nothing was written. Send these records again.`,
      fields: [],
    };
  }
  if (error instanceof CrmError && error.kind === 'unreachable') {
    return {
      statusCode: 'CRM_PROXY_OUTCOME_UNKNOWN',
      message: `The ${operation} call to Salesforce got no answer (${error.message}); it was not resent, because Salesforce may have applied it. Check the records before sending them again.`,
      fields: [],
    };
  }
  if (error instanceof CrmError) {
    const first = Array.isArray(error.crmBody) ? (error.crmBody[0] as Record<string, unknown>) : undefined;
    return {
      statusCode: String(first?.['errorCode'] ?? `HTTP_${error.status ?? 'ERROR'}`),
      message: `The ${operation} call failed with status ${error.status ?? '?'}: ${String(first?.['message'] ?? error.message)}. Nothing was resent.`,
      fields: [],
    };
  }
  return { statusCode: 'CRM_PROXY_ERROR', message: `The ${operation} call failed.`, fields: [] };
}
