import { ApiError } from '../../errors/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { retrying } from '../../lib/retry.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import type { AnswerHead, CrmSession, HandlerCall } from '../adapter.ts';
import { parseRetryAfter } from '../client/retry.ts';
import { type HttpMethod, headerValue, type OutboundResponse, parseJson } from '../client/types.ts';
import { crmErrorFromResponse, unreachableAsCrmError } from '../errors.ts';
import { type CallKind, DAILY_SPENT, type DailySpent, HubSpotPacer, type PacerOptions } from './pacing.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

/** A custom object's schema, as the cache keeps it. */
export interface SchemaSummary {
  objectTypeId: string;
  fullyQualifiedName: string;
  name: string;
}

/** What the service needs of a HubSpot property to check and format the values written to it. */
export interface PropertyInfo {
  name: string;
  type: string;
  fieldType: string;
  /** Option values and labels (enumerations). */
  options: Array<{ value: string; label: string }>;
  /** Options come from elsewhere (owners, pipelines): not checked here. */
  externalOptions: boolean;
  hasUniqueValue: boolean;
  readOnlyValue: boolean;
}

interface ConnectionState {
  pacer: HubSpotPacer;
  /** Custom object schemas (one key). */
  schemas: TtlCache<SchemaSummary[]>;
  /** Properties per object type id. */
  properties: TtlCache<PropertyInfo[]>;
}

const PROPERTIES_CHANGED = 'hubspot:properties-changed';

/** Per connection: its pacer (HubSpot's limits are per account and app) and cached schemas and properties. */
export class PerConnectionState {
  readonly clock: Clock;
  readonly #pacerOptions: Omit<PacerOptions, 'clock'>;
  readonly #states = new Map<string, ConnectionState>();
  readonly #shared: SharedState | undefined;

  constructor(options: {
    clock: Clock;
    pacer?: Omit<PacerOptions, 'clock'>;
    shared?: SharedState | undefined;
  }) {
    this.clock = options.clock;
    this.#pacerOptions = options.pacer ?? {};
    this.#shared = options.shared;
    // Another instance changed a connection's properties (null: notices may have been missed).
    options.shared?.subscribe(PROPERTIES_CHANGED, (connectionId) => this.#forget(connectionId));
    // Another instance found a connection's daily allowance used up.
    options.shared?.subscribe(DAILY_SPENT, (message) => {
      let m: { connectionId?: unknown; until?: unknown; crmError?: unknown } | null;
      try {
        m = JSON.parse(message ?? 'null');
      } catch {
        return;
      }
      if (typeof m?.connectionId === 'string' && typeof m.until === 'number')
        this.of(m.connectionId).pacer.spentForTheDay(m.until, m.crmError, false);
    });
  }

  /** Tells every instance (this one too) that the connection's properties or schemas changed. */
  async propertiesChanged(connectionId: string): Promise<void> {
    this.#forget(connectionId);
    await this.#shared?.publish(PROPERTIES_CHANGED, connectionId);
  }

  #forget(connectionId: string | null): void {
    const states = connectionId === null ? [...this.#states.values()] : [this.#states.get(connectionId)];
    for (const state of states) {
      state?.properties.clear();
      state?.schemas.clear();
    }
  }

  of(connectionId: string): ConnectionState {
    let state = this.#states.get(connectionId);
    if (state === undefined) {
      state = {
        pacer: new HubSpotPacer({
          clock: this.clock,
          shared: this.#shared,
          sharedKey: connectionId,
          ...this.#pacerOptions,
        }),
        schemas: new TtlCache({ ttlMs: HUBSPOT_PROFILE.schemasTtlMs, max: 1, clock: this.clock }),
        properties: new TtlCache({
          ttlMs: HUBSPOT_PROFILE.propertiesTtlMs,
          max: HUBSPOT_PROFILE.cachedTypesPerConnection,
          clock: this.clock,
        }),
      };
      this.#states.set(connectionId, state);
    }
    return state;
  }

  /** HubSpot as one handler call reaches it: its connection's caches, and calls paced under its cap. */
  at(call: HandlerCall) {
    const state = this.of(call.session.connectionId);
    const send = (request: HubSpotCall) =>
      call.limiter.run(() => hubspotCall(call.session, state.pacer, this.clock, request));
    // The JSON of an answer with one of the `ok` statuses (default 200); else HubSpot's error about `what`.
    const json = async <T>(request: HubSpotCall & { what: string; ok?: number[] }) => {
      const response = await send(request);
      if (!(request.ok ?? [200]).includes(response.status)) {
        throw crmErrorFromResponse('hubspot', response, request.what);
      }
      return parseJson<T>(response);
    };
    return {
      call,
      clock: this.clock,
      state,
      send,
      json,
      get: <T>(path: string, label: string, what: string) =>
        json<T>({ method: 'GET', path, idempotent: true, label, what }),
      propertiesChanged: () => this.propertiesChanged(call.session.connectionId),
    };
  }
}

export type HubSpotApi = ReturnType<PerConnectionState['at']>;

interface HubSpotCall {
  method: HttpMethod;
  /** Path and query under the connection's API base URL. */
  path: string;
  body?: unknown;
  /** True for calls that only read (batch/read is a POST that only reads). */
  idempotent: boolean;
  label: string;
  kind?: CallKind;
}

type RetryBudget = Record<'maxAttempts' | 'maxRetryWaitMs' | 'fallbackWaitMs', number>;

const DAY_MS = 86_400_000;

type RateLimitStep =
  | { kind: 'answer' }
  | { kind: 'retry'; waitMs: number }
  | { kind: 'refuse'; error: ApiError; daily?: DailySpent };

/** After one answer: a 429 is retried within the budget; the daily allowance is never waited for. */
export function afterAnswer(
  response: OutboundResponse,
  kind: CallKind,
  attempt: number,
  waitedMs: number,
  now: number,
  budget: RetryBudget,
  waitHint: () => number | null,
): RateLimitStep {
  if (response.status !== 429) return { kind: 'answer' };
  const body = parseJson<{ policyName?: string }>(response);
  if (body?.policyName === 'DAILY') {
    const untilMidnight = Math.ceil(DAY_MS - (now % DAY_MS));
    return {
      kind: 'refuse',
      error: dailySpent(body, untilMidnight),
      daily: { until: now + untilMidnight, crmError: body },
    };
  }
  const wait = retryWait(response, kind, now, budget.fallbackWaitMs);
  if (attempt >= budget.maxAttempts || waitedMs + wait > budget.maxRetryWaitMs) {
    const error = rateLimitError(
      response.status,
      body ?? response.text.slice(0, 500),
      Math.max(wait, waitHint() ?? 0),
      'it kept refusing after the service paced and retried its calls',
    );
    return { kind: 'refuse', error };
  }
  return { kind: 'retry', waitMs: wait };
}

/** The wait HubSpot indicates after a 429: `Retry-After`, else a second for search's per-second limit. */
function retryWait(answer: AnswerHead, kind: CallKind, now: number, fallbackMs: number): number {
  return (
    parseRetryAfter(headerValue(answer.headers, 'retry-after'), now) ??
    (kind === 'search' ? HUBSPOT_PROFILE.rateLimits.searchWindowMs : fallbackMs)
  );
}

/** One paced call; a 429 is retried within the budget, then answered with our own 429. */
export async function hubspotCall(
  session: CrmSession,
  pacer: HubSpotPacer,
  clock: Clock,
  call: HubSpotCall,
  budget: RetryBudget = HUBSPOT_PROFILE.rateLimits,
): Promise<OutboundResponse> {
  const kind = call.kind ?? 'standard';
  const send = () =>
    session.send({
      method: call.method,
      url: `${session.baseUrl}${call.path}`,
      headers: {
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      idempotent: call.idempotent,
      label: call.label,
      ownRateLimit: true,
    });
  let waited = 0;
  let refusal: ApiError | undefined;
  const response = await retrying(clock, {
    attempt: async () => {
      // Spent, here or on another instance: HubSpot would refuse.
      const daily = pacer.dailySpent();
      if (daily !== undefined) throw dailySpent(daily.crmError, daily.until - clock.now());
      return pacer.run(
        kind,
        () => unreachableAsCrmError(HUBSPOT_PROFILE.provider, call.label, send),
        (answer) => answer,
      );
    },
    next: (answer, attempt) => {
      const step = afterAnswer(answer, kind, attempt, waited, clock.now(), budget, () =>
        pacer.waitHint(kind),
      );
      if (step.kind === 'answer') return undefined;
      if (step.kind === 'refuse') {
        refusal = step.error;
        if (step.daily !== undefined) pacer.spentForTheDay(step.daily.until, step.daily.crmError);
        return undefined;
      }
      pacer.block(kind, step.waitMs);
      waited += step.waitMs;
      return step.waitMs;
    },
  });
  if (refusal !== undefined) throw refusal;
  return response;
}

/** Our 429 while the account's daily allowance is used up (HubSpot's own refusal in `crmError`). */
function dailySpent(crmError: unknown, retryAfterMs: number): ApiError {
  return rateLimitError(429, crmError, retryAfterMs, 'its daily API allowance is used up');
}

function rateLimitError(status: number, crmError: unknown, retryAfterMs: number, why: string): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(
    'crm_rate_limited',
    `HubSpot rate-limited this connection: ${why}. Retry after ${seconds} s.`,
    {
      headers: { 'retry-after': String(seconds) },
      details: [{ provider: 'hubspot', status, crm_error: crmError, retry_after_seconds: seconds }],
    },
  );
}

/** A call the caller sends itself (pass-through) in the connection's pacing; its answer is returned as is. */
export async function paced<T>(
  pacer: HubSpotPacer,
  clock: Clock,
  path: string,
  send: () => Promise<T>,
  headOf: (answer: T) => AnswerHead,
): Promise<T> {
  const kind: CallKind = /\/search\/?(?:\?|$)/.test(path) ? 'search' : 'standard';
  const answer = await pacer.run(kind, send, (a) => ({ ...headOf(a), text: '', attempts: 1 }));
  const head = headOf(answer);
  if (head.status === 429) {
    pacer.block(kind, retryWait(head, kind, clock.now(), HUBSPOT_PROFILE.rateLimits.fallbackWaitMs));
  }
  return answer;
}
