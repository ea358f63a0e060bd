import { ApiError } from '../../errors/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { retrying } from '../../lib/retry.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import type { AnswerHead, CrmSession } from '../adapter.ts';
import { parseRetryAfter } from '../client/retry.ts';
import { type HttpMethod, headerValue, type OutboundResponse, parseJson } from '../client/types.ts';
import { unreachableAsCrmError } from '../errors.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

// HubSpot's rate limits: the pacer of one connection's calls, and the calls made through it.

export type CallKind = 'standard' | 'search';

/** A connection's daily allowance is used up (message: JSON `{ connectionId, until, crmError }`). */
export const DAILY_SPENT = 'hubspot-daily-spent';

/** Until when (epoch ms) the account's daily allowance is used up, and HubSpot's refusal. */
interface DailySpent {
  until: number;
  crmError: unknown;
}

interface WindowOptions {
  max: number;
  windowMs: number;
  headroom: number;
  probe: boolean;
}

/**
 * A rolling window of our own calls, counted the way HubSpot counts them but never earlier: a call
 * holds a slot from the moment it is sent, and its slot is freed one window after its answer came
 * back (HubSpot received it before that), so our calls alone can never exceed the limit.
 */
class Window {
  max: number;
  windowMs: number;
  readonly headroom: number;
  inFlight = 0;
  /** Answer times of finished calls still in the window, oldest first. */
  readonly finished: number[] = [];
  /** Slots HubSpot reports as used by someone else, and until when we keep them free. */
  foreign = 0;
  foreignUntil = 0;
  /** No call leaves before this instant (after a 429). */
  blockedUntil = 0;
  /** Until one answer has come back (its headers tell the real limit), one call at a time. */
  probing: boolean;
  /** Calls of every instance in the shared window at our last reservation (0 when nothing is shared). */
  sharedCount = 0;
  /** Calls waiting for a slot, in arrival order. */
  readonly queue: Array<() => void> = [];
  /** The pending wake-up of the queue; replaced (aborted) when the window changes sooner. */
  wakeUp: AbortController | undefined;

  constructor(o: WindowOptions) {
    this.max = o.max;
    this.windowMs = o.windowMs;
    this.headroom = o.headroom;
    this.probing = o.probe;
  }

  prune(now: number): void {
    while (this.finished.length > 0 && (this.finished[0] as number) + this.windowMs <= now) {
      this.finished.shift();
    }
    if (now >= this.foreignUntil) this.foreign = 0;
  }

  capacity(): number {
    return Math.max(1, this.max - this.headroom - this.foreign);
  }

  /** When a slot may be free again (null: only a finishing call can free one). */
  nextChange(now: number): number | null {
    const candidates: number[] = [];
    if (this.blockedUntil > now) candidates.push(this.blockedUntil);
    const oldest = this.finished[0];
    if (oldest !== undefined) candidates.push(oldest + this.windowMs);
    if (this.foreign > 0) candidates.push(this.foreignUntil);
    return candidates.length === 0 ? null : Math.min(...candidates);
  }

  canSend(now: number): boolean {
    this.prune(now);
    if (now < this.blockedUntil) return false;
    if (this.probing) return this.inFlight === 0;
    return this.inFlight + this.finished.length < this.capacity();
  }
}

export interface PacerOptions {
  clock: Clock;
  max?: number;
  windowMs?: number;
  headroom?: number;
  searchMax?: number;
  searchWindowMs?: number;
  /** Send one call alone first, to learn the limit from its headers before any burst (default true). */
  probe?: boolean;
  /**
   * Windows shared with the other instances (Redis), under `sharedKey` (the connection): a call then
   * also needs a slot in the shared window, so all instances together stay under HubSpot's limits.
   */
  shared?: SharedState | undefined;
  sharedKey?: string;
  /** A call was held back `waitMs` before it could leave (metrics). */
  onWait?: ((kind: CallKind, waitMs: number) => void) | undefined;
}

/** A call's hold on the windows, returned by `acquire` and handed back to `done`. */
export type PacerSlot = string | undefined;

/**
 * Paces one connection's calls to HubSpot under its limits (the rolling 10-second window per app;
 * CRM search's 5 per second) instead of finding them by failing. Calls wait in arrival order. The
 * window's size follows `X-HubSpot-RateLimit-Max` / `-Interval-Milliseconds`, and
 * `-Remaining` reveals calls of other clients of the same app, whose slots are then kept free.
 */
export class HubSpotPacer {
  readonly #clock: Clock;
  readonly #shared: SharedState | undefined;
  readonly #sharedKey: string;
  readonly #connectionId: string;
  #daily: DailySpent | undefined;
  readonly #onWait: PacerOptions['onWait'];
  readonly #windows: Record<CallKind, Window>;

  constructor(options: PacerOptions) {
    const r = HUBSPOT_PROFILE.rateLimits;
    this.#clock = options.clock;
    this.#shared = options.shared?.mode() === 'local' ? undefined : options.shared;
    this.#connectionId = options.sharedKey ?? 'default';
    this.#sharedKey = `hubspot:${this.#connectionId}`;
    this.#onWait = options.onWait;
    this.#windows = {
      standard: new Window({
        max: options.max ?? r.initialMax,
        windowMs: options.windowMs ?? r.windowMs,
        headroom: options.headroom ?? r.headroom,
        probe: options.probe ?? true,
      }),
      search: new Window({
        max: options.searchMax ?? r.searchMax,
        windowMs: options.searchWindowMs ?? r.searchWindowMs,
        headroom: 0,
        probe: false,
      }),
    };
  }

  /** Waits for a slot; the caller must call `done` with the slot once the answer (or the failure) is in. */
  async acquire(kind: CallKind): Promise<PacerSlot> {
    const w = this.#windows[kind];
    const asked = this.#clock.now();
    let held = false;
    if (w.queue.length === 0 && w.canSend(asked)) {
      w.inFlight += 1;
    } else {
      held = true;
      await new Promise<void>((resolve) => {
        w.queue.push(resolve);
        this.#pump(kind);
      });
    }
    let slot: PacerSlot;
    if (this.#shared !== undefined) {
      const shared = await this.#reserveShared(this.#shared, kind, w);
      held ||= shared.waited;
      slot = shared.slot;
    }
    if (held) this.#onWait?.(kind, this.#clock.now() - asked);
    return slot;
  }

  /**
   * With this instance's slot held, waits for one in the window all instances share. While the
   * shared state is degraded (Redis down) it answers at once: this instance's window is then all there is.
   */
  async #reserveShared(
    shared: SharedState,
    kind: CallKind,
    w: Window,
  ): Promise<{ slot: PacerSlot; waited: boolean }> {
    const key = `${this.#sharedKey}:${kind}`;
    for (let waited = false; ; waited = true) {
      const answer = await shared.reserveSlot(key, w.capacity(), w.windowMs);
      w.sharedCount = answer.count;
      if (answer.ok) return { slot: answer.id, waited };
      await this.#clock.sleep(Math.min(answer.waitMs, w.windowMs));
    }
  }

  /** The call is over: its slot starts its window now; the answer's rate-limit headers adjust the window. */
  done(kind: CallKind, response: OutboundResponse | undefined, slot?: PacerSlot): void {
    const w = this.#windows[kind];
    const now = this.#clock.now();
    if (slot !== undefined) void this.#shared?.finishSlot(`${this.#sharedKey}:${kind}`, slot, w.windowMs);
    w.inFlight = Math.max(0, w.inFlight - 1);
    // The outbound client may have resent a read after a 5xx: each attempt was a HubSpot call.
    const attempts = Math.max(1, Math.min(10, response?.attempts ?? 1));
    for (let i = 0; i < attempts; i++) w.finished.push(now);
    if (response !== undefined) {
      w.probing = false;
      if (kind === 'standard') this.#adapt(w, response, now);
    }
    this.#pump(kind);
  }

  /** HubSpot refused with 429: nothing of this kind leaves for `waitMs`. */
  block(kind: CallKind, waitMs: number): void {
    const w = this.#windows[kind];
    w.blockedUntil = Math.max(w.blockedUntil, this.#clock.now() + waitMs);
    void this.#shared?.block(`${this.#sharedKey}:${kind}`, waitMs);
    this.#pump(kind);
  }

  /**
   * HubSpot refused with its daily limit: every call of this connection is refused without being
   * sent until `until`, on every instance when the state is shared (they would each spend a refused
   * call to learn it otherwise).
   */
  spentForTheDay(until: number, crmError: unknown, tell = true): void {
    if (this.#daily !== undefined && this.#daily.until >= until) return;
    this.#daily = { until, crmError };
    if (tell) {
      const message = JSON.stringify({ connectionId: this.#connectionId, until, crmError });
      void this.#shared?.publish(DAILY_SPENT, message).catch(() => {});
    }
  }

  /** The daily allowance's refusal while it lasts. */
  dailySpent(): DailySpent | undefined {
    if (this.#daily !== undefined && this.#daily.until <= this.#clock.now()) this.#daily = undefined;
    return this.#daily;
  }

  /** How long until a slot frees up by itself (used as the wait after a 429 that says nothing better). */
  waitHint(kind: CallKind): number | null {
    const now = this.#clock.now();
    const w = this.#windows[kind];
    w.prune(now);
    const oldest = w.finished[0];
    return oldest === undefined ? null : Math.max(0, oldest + w.windowMs - now);
  }

  /** Current view, for logs and tests. */
  state(kind: CallKind = 'standard'): { max: number; windowMs: number; inWindow: number; foreign: number } {
    const w = this.#windows[kind];
    w.prune(this.#clock.now());
    return { max: w.max, windowMs: w.windowMs, inWindow: w.inFlight + w.finished.length, foreign: w.foreign };
  }

  #adapt(w: Window, response: OutboundResponse, now: number): void {
    const h = HUBSPOT_PROFILE.headers;
    const max = Number(headerValue(response.headers, h.max));
    const interval = Number(headerValue(response.headers, h.interval));
    const remaining = Number(headerValue(response.headers, h.remaining));
    if (Number.isInteger(max) && max > 0) w.max = max;
    if (Number.isInteger(interval) && interval > 0) w.windowMs = interval;
    if (!Number.isInteger(remaining) || remaining < 0) return;
    w.prune(now);
    // HubSpot counted `max - remaining` calls when it received this one; ours in the window (all
    // instances' when shared) are a lower bound of those, so the rest is certainly someone else's.
    const others = w.max - remaining - Math.max(w.finished.length + w.inFlight, w.sharedCount);
    if (others > w.foreign || now >= w.foreignUntil) {
      w.foreign = Math.max(0, others);
      w.foreignUntil = now + w.windowMs;
    }
  }

  /** Lets waiting calls go while there is room, then sleeps on the clock until the window changes. */
  #pump(kind: CallKind): void {
    const w = this.#windows[kind];
    let now = this.#clock.now();
    while (w.queue.length > 0 && w.canSend(now)) {
      w.inFlight += 1;
      w.queue.shift()?.();
      now = this.#clock.now();
    }
    if (w.queue.length === 0) return;
    const at = w.nextChange(now);
    if (at === null) return; // a call in flight will pump on `done`
    w.wakeUp?.abort();
    const wakeUp = new AbortController();
    w.wakeUp = wakeUp;
    void this.#clock.sleep(Math.max(1, at - now), wakeUp.signal).then(() => {
      if (wakeUp.signal.aborted) return;
      w.wakeUp = undefined;
      this.#pump(kind);
    });
  }
}

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
      pacer.block(kind, retryWait(head, kind, clock.now(), HUBSPOT_PROFILE.rateLimits.fallbackWaitMs));
    }
  }
}
