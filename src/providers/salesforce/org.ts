import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { ApiError, type ErrorCode } from '../../errors/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { CrmSession, JobHook, OperationAnswers, OperationInputs } from '../adapter.ts';
import { type OutboundRequest, type OutboundResponse, parseJson } from '../client/types.ts';
import { callFailure, unreachableAsCrmError } from '../errors.ts';
import type { AllowanceBook } from './allowance.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** Salesforce's Describe Global result, passed through unchanged. */
export interface DescribeGlobalResult {
  sobjects: Array<{ name: string; keyPrefix?: string | null } & Record<string, unknown>>;
  [key: string]: unknown;
}

/** Salesforce's sObject Describe result, passed through unchanged. */
export interface ObjectDescribe {
  name: string;
  keyPrefix?: string | null;
  fields: Array<{ name: string } & Record<string, unknown>>;
  [key: string]: unknown;
}

const DESCRIBES_CHANGED = 'salesforce:describes-changed';

/** Describes per connection, cleared on every instance on a field's addition (all on a null notice). */
export class DescribeCache extends TtlCache<DescribeGlobalResult | ObjectDescribe | null> {
  readonly #shared: SharedState | undefined;

  constructor(ttlMs: number, clock: Clock, shared: SharedState | undefined) {
    super({ ttlMs, max: SALESFORCE_PROFILE.cachedDescribes, clock });
    this.#shared = shared;
    shared?.subscribe(DESCRIBES_CHANGED, (connectionId) => {
      if (connectionId === null) this.clear();
      else this.#drop(connectionId);
    });
  }

  #drop(connectionId: string): void {
    this.deleteWhere((key) => key.startsWith(`${connectionId}\u0000`));
  }

  /** Drops a connection's cached describes on every instance (after a metadata change). */
  async forget(connectionId: string): Promise<void> {
    this.#drop(connectionId);
    await this.#shared?.publish(DESCRIBES_CHANGED, connectionId);
  }
}

/** One handler call on one org, with the adapter's settings and caches (built per call in index.ts). */
export interface Org {
  readonly session: CrmSession;
  readonly limiter: ConcurrencyLimiter;
  /** Set when the write runs as a durable job. */
  readonly job?: JobHook | undefined;
  readonly clock: Clock;
  /** The org's REST API root: `{instance}/services/data/v62.0`. */
  readonly api: string;
  readonly describes: DescribeCache;
  /** Signs the query cursors handed out. */
  readonly cursorKey: Buffer;
  readonly allowances: AllowanceBook;
  /** Writes of at least this many records may go through Bulk API 2.0. */
  readonly bulkThreshold: number;
  /** Below this share of the daily allowance left, the most frugal plan; at or above, the fastest. */
  readonly frugalBelow: number;
}

export type OrgHandler<O extends keyof OperationInputs> = (
  org: Org,
  input: OperationInputs[O],
) => Promise<OperationAnswers[O]>;

/** A request to the org; `json` is sent as a JSON body (and JSON asked for back). */
export type OrgRequest = Omit<OutboundRequest, 'label'> & { json?: unknown };

/** One call to the org, logged as `salesforce.{label}`; "could not reach Salesforce" becomes a CrmError naming `what`. */
export function send(
  org: Pick<Org, 'session'>,
  what: string,
  label: string,
  request: OrgRequest,
): Promise<OutboundResponse> {
  const { json, ...rest } = request;
  if (json !== undefined) {
    rest.headers = { 'content-type': 'application/json', accept: 'application/json' };
    rest.body = JSON.stringify(json);
  }
  return unreachableAsCrmError('salesforce', what, () =>
    org.session.send({ ...rest, label: `salesforce.${label}` }),
  );
}

/** Salesforce's 400 to what the client sent, as the client's mistake: its first message, and its answer in `details`. */
export function rejected(response: OutboundResponse, code: ErrorCode, what: string): ApiError {
  const body = parseJson<unknown>(response);
  const first = Array.isArray(body) ? (body[0] as { message?: string } | undefined) : undefined;
  const text = response.text.slice(0, 500);
  return new ApiError(code, `Salesforce rejected ${what}: ${first?.message?.trim() ?? text}`, {
    details: [{ provider: 'salesforce', crm_error: body ?? text }],
  });
}

export const failure = (statusCode: string, message: string, fields: string[] = []): SaveResult => ({
  success: false,
  errors: [{ statusCode, message, fields }],
});

/** The entry of a record a cancelled job never sent. */
export const cancelledResult = (): SaveResult =>
  failure(
    'CRM_PROXY_CANCELLED',
    'The job was cancelled before this record was sent; nothing was written for it.',
  );

/** Salesforce's own answer to a malformed id, given without a call. */
export const malformedId = (id: string): SaveResult => failure('MALFORMED_ID', `malformed id ${id}`);

/** Salesforce's entry as is, with `id` omitted rather than null on failures. */
export function normalizeResult(r: SaveResult & { id?: string | null }): SaveResult {
  const errors = Array.isArray(r.errors) ? r.errors.map(normalizeError) : [];
  return typeof r.id === 'string' && r.id !== ''
    ? { id: r.id, success: r.success === true, errors }
    : { success: r.success === true, errors };
}

/** A record error of a save result (`statusCode`) or of a REST error answer (`errorCode`). */
export function normalizeError(e: Partial<RecordError> & { errorCode?: string }): RecordError {
  return {
    statusCode: String(e.statusCode ?? e.errorCode ?? 'UNKNOWN_EXCEPTION'),
    message: String(e.message ?? ''),
    fields: Array.isArray(e.fields) ? e.fields.map(String) : [],
  };
}

/** The entry given to each record of a call that failed as a whole. */
export function failedCallEntry(error: unknown, operation: string): RecordError {
  const first = (body: unknown) => {
    const entry = Array.isArray(body) ? (body[0] as Record<string, unknown> | undefined) : undefined;
    return { code: entry?.['errorCode'], message: entry?.['message'] };
  };
  return (
    callFailure('Salesforce', error, operation, first) ?? {
      statusCode: 'CRM_PROXY_ERROR',
      message: `The ${operation} call failed.`,
      fields: [],
    }
  );
}
