import type { Clock } from '../../lib/clock.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import type { TtlCache } from '../../lib/ttl-cache.ts';
import type { CrmSession, JobHook, OperationAnswers, OperationInputs } from '../adapter.ts';
import type { OutboundRequest, OutboundResponse } from '../client/types.ts';
import { unreachableAsCrmError } from '../errors.ts';
import type { AllowanceBook } from './allowance.ts';

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

/** Describes per connection: `{connectionId}\u0000global` and `{connectionId}\u0000object:{Name}`. */
export type DescribeCache = TtlCache<DescribeGlobalResult | ObjectDescribe | null>;

export interface BulkOptions {
  /** First wait between polls; grows ×1.5 up to `maxPollMs`. */
  firstPollMs?: number;
  maxPollMs?: number;
  /** Give up waiting (the job is aborted; its rows are answered as not confirmed). */
  timeoutMs?: number;
}

/**
 * One handler call on one org, with the adapter's settings and caches: what every Salesforce
 * function takes. Built per call by the adapter (index.ts).
 */
export interface Org {
  readonly session: CrmSession;
  readonly limiter: ConcurrencyLimiter;
  /** Set when the write runs as a durable job. */
  readonly job?: JobHook | undefined;
  readonly clock: Clock;
  /** The org's REST API root: `{instance}/services/data/v62.0`. */
  readonly api: string;
  readonly describes: DescribeCache;
  /** Drops the connection's cached describes on every instance (after a metadata change). */
  forgetDescribes(): Promise<void>;
  /** Signs the query cursors handed out. */
  readonly cursorKey: Buffer;
  readonly allowances: AllowanceBook;
  /** Writes of at least this many records may go through Bulk API 2.0. */
  readonly bulkThreshold: number;
  /** Below this share of the daily allowance left, the most frugal plan; at or above, the fastest. */
  readonly frugalBelow: number;
  /** Bulk job polling, when not the profile's. */
  readonly bulk?: BulkOptions;
}

/** An operation as the Salesforce functions take it: on an org. */
export type OrgHandler<O extends keyof OperationInputs> = (
  org: Org,
  input: OperationInputs[O],
) => Promise<OperationAnswers[O]>;

/** A request to the org; `json` is sent as a JSON body (and JSON asked for back). */
export type OrgRequest = Omit<OutboundRequest, 'label' | 'headers'> & {
  headers?: Record<string, string>;
  json?: unknown;
};

/** One call to the org, logged as `salesforce.{label}`; "could not reach Salesforce" becomes a CrmError naming `what`. */
export function send(
  org: Pick<Org, 'session'>,
  what: string,
  label: string,
  request: OrgRequest,
): Promise<OutboundResponse> {
  const { json, ...rest } = request;
  const withBody =
    json === undefined
      ? rest
      : {
          ...rest,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(json),
        };
  return unreachableAsCrmError('salesforce', what, () =>
    org.session.send({ ...withBody, label: `salesforce.${label}` }),
  );
}
