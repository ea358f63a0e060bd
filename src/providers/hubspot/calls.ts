import { ApiError } from '../../errors/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { retrying } from '../../lib/retry.ts';
import type { AnswerHead, CrmSession } from '../adapter.ts';
import { parseRetryAfter } from '../client/retry.ts';
import { type HttpMethod, headerValue, type OutboundResponse, parseJson } from '../client/types.ts';
import { unreachableAsCrmError } from '../errors.ts';
import type { CallKind, HubSpotPacer } from './pacing.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

export interface HubSpotCall {
  method: HttpMethod;
  /** Path and query under the connection's API base URL. */
  path: string;
  body?: unknown;
  /** True for calls that only read (batch/read is a POST that only reads). */
  idempotent: boolean;
  label: string;
  kind?: CallKind;
}

export interface RetryBudget {
  maxAttempts: number;
  maxRetryWaitMs: number;
  fallbackWaitMs: number;
}

interface RateLimitBody {
  policyName?: string;
  message?: string;
}

const DAY_MS = 86_400_000;

/** What to do after one answer: hand it back, wait and send again, or answer our own 429. */
export type RateLimitStep =
  | { kind: 'answer' }
  | { kind: 'retry'; waitMs: number }
  /** `daily`: the account's daily allowance is used up until then (epoch ms), as HubSpot said in `crmError`. */
  | { kind: 'refuse'; error: ApiError; daily?: { until: number; crmError: unknown } };

/**
 * The pure decision after one paced HubSpot answer. A 429 is retried after the wait HubSpot
 * indicates (`Retry-After` when present; a second for search's per-second limit; otherwise the
 * fallback wait) while the attempts and the waits stay within the budget; the daily allowance is
 * never waited for.
 */
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
  const body = parseJson<RateLimitBody>(response);
  if (body?.policyName === 'DAILY') {
    const untilMidnight = Math.ceil(DAY_MS - (now % DAY_MS));
    return {
      kind: 'refuse',
      error: dailySpent(body, untilMidnight),
      daily: { until: now + untilMidnight, crmError: body },
    };
  }
  const wait =
    parseRetryAfter(headerValue(response.headers, 'retry-after'), now) ??
    (kind === 'search' ? HUBSPOT_PROFILE.rateLimits.searchWindowMs : budget.fallbackWaitMs);
  if (attempt >= budget.maxAttempts || waitedMs + wait > budget.maxRetryWaitMs) {
    const hint = Math.max(wait, waitHint() ?? 0);
    return {
      kind: 'refuse',
      error: rateLimited(
        response,
        body,
        hint,
        'it kept refusing after the service paced and retried its calls',
      ),
    };
  }
  return { kind: 'retry', waitMs: wait };
}

/**
 * One HubSpot call, paced by the connection's pacer, through the shared retry loop on the clock.
 * While a 429 is waited out, the connection's other calls are held back too. When the budget is
 * spent, or the daily allowance is gone, the client gets our own 429 with `Retry-After`.
 */
export async function hubspotCall(
  session: CrmSession,
  pacer: HubSpotPacer,
  clock: Clock,
  call: HubSpotCall,
  budget: RetryBudget = HUBSPOT_PROFILE.rateLimits,
): Promise<OutboundResponse> {
  const kind = call.kind ?? 'standard';
  let waited = 0;
  let refusal: ApiError | undefined;
  const response = await retrying(clock, {
    attempt: async () => {
      // Known to be spent (here or, with shared state, on another instance): HubSpot would refuse.
      const daily = pacer.dailySpent();
      if (daily !== undefined) throw dailySpent(daily.crmError, daily.until - clock.now());
      const slot = await pacer.acquire(kind);
      let answer: OutboundResponse | undefined;
      try {
        answer = await unreachableAsCrmError(HUBSPOT_PROFILE.provider, call.label, () =>
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
          }),
        );
      } finally {
        pacer.done(kind, answer, slot);
      }
      return answer;
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
export function dailySpent(crmError: unknown, retryAfterMs: number): ApiError {
  return rateLimitError(429, crmError, retryAfterMs, 'its daily API allowance is used up');
}

function rateLimited(
  response: OutboundResponse,
  body: RateLimitBody | undefined,
  retryAfterMs: number,
  why: string,
): ApiError {
  return rateLimitError(response.status, body ?? response.text.slice(0, 500), retryAfterMs, why);
}

function rateLimitError(status: number, crmError: unknown, retryAfterMs: number, why: string): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(
    'crm_rate_limited',
    `HubSpot rate-limited this connection: ${why}. Retry after ${seconds} s.`,
    {
      headers: { 'retry-after': String(seconds) },
      details: [
        {
          provider: 'hubspot',
          status,
          crm_error: crmError,
          retry_after_seconds: seconds,
        },
      ],
    },
  );
}

/**
 * Runs one call the caller sends itself (the pass-through streams its own) in the connection's
 * pacing: it waits for a slot, its answer's rate-limit headers adjust the window, and a 429 holds
 * the connection's other calls back as HubSpot indicates. The answer is returned as it is.
 */
export async function paced<T>(
  pacer: HubSpotPacer,
  clock: Clock,
  path: string,
  send: () => Promise<T>,
  headOf: (answer: T) => AnswerHead,
): Promise<T> {
  const kind: CallKind = /\/search\/?(?:\?|$)/.test(path) ? 'search' : 'standard';
  const slot = await pacer.acquire(kind);
  let head: AnswerHead | undefined;
  try {
    const answer = await send();
    head = headOf(answer);
    return answer;
  } finally {
    const response = head === undefined ? undefined : { ...head, text: '', attempts: 1 };
    pacer.done(kind, response, slot);
    if (head?.status === 429) {
      const wait =
        parseRetryAfter(headerValue(head.headers, 'retry-after'), clock.now()) ??
        (kind === 'search'
          ? HUBSPOT_PROFILE.rateLimits.searchWindowMs
          : HUBSPOT_PROFILE.rateLimits.fallbackWaitMs);
      pacer.block(kind, wait);
    }
  }
}
