import type { Clock } from '../../lib/clock.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import { headerValue, type OutboundResponse } from '../client/types.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

// HubSpot's rate limits: the pacer of one connection's calls (connection-state.ts sends them through it).

export type CallKind = 'standard' | 'search';

/** A connection's daily allowance is used up (message: JSON `{ connectionId, until, crmError }`). */
export const DAILY_SPENT = 'hubspot-daily-spent';

/** Until when (epoch ms) the account's daily allowance is used up, and HubSpot's refusal. */
export interface DailySpent {
  until: number;
  crmError: unknown;
}

/**
 * A rolling window of our own calls, counted the way HubSpot counts them but never earlier: a call
 * holds a slot from the moment it is sent, and its slot is freed one window after its answer came
 * back (HubSpot received it before that), so our calls alone can never exceed the limit.
 */
class Window {
  max: number;
  windowMs: number;
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

  constructor(max: number, windowMs: number, probing: boolean) {
    this.max = max;
    this.windowMs = windowMs;
    this.probing = probing;
  }

  prune(now: number): void {
    while (this.finished.length > 0 && (this.finished[0] as number) + this.windowMs <= now) {
      this.finished.shift();
    }
    if (now >= this.foreignUntil) this.foreign = 0;
  }

  capacity(): number {
    return Math.max(1, this.max - this.foreign);
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
      standard: new Window(
        options.max ?? r.initialMax,
        options.windowMs ?? r.windowMs,
        options.probe ?? true,
      ),
      search: new Window(r.searchMax, r.searchWindowMs, false),
    };
  }

  /**
   * Waits for a slot; the caller must call `done` with what this returns (the hold on the shared
   * window, if any) once the answer (or the failure) is in.
   */
  async acquire(kind: CallKind): Promise<string | undefined> {
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
    let slot: string | undefined;
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
  ): Promise<{ slot: string | undefined; waited: boolean }> {
    const key = `${this.#sharedKey}:${kind}`;
    for (let waited = false; ; waited = true) {
      const answer = await shared.reserveSlot(key, w.capacity(), w.windowMs);
      w.sharedCount = answer.count;
      if (answer.ok) return { slot: answer.id, waited };
      await this.#clock.sleep(Math.min(answer.waitMs, w.windowMs));
    }
  }

  /** The call is over: its slot starts its window now; the answer's rate-limit headers adjust the window. */
  done(kind: CallKind, response: OutboundResponse | undefined, slot?: string): void {
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

  /** One call sent in a slot of its kind, freed (`done`) with its answer's head once it is in. */
  async run<T>(kind: CallKind, send: () => Promise<T>, head: (answer: T) => OutboundResponse): Promise<T> {
    const slot = await this.acquire(kind);
    let response: OutboundResponse | undefined;
    try {
      const answer = await send();
      response = head(answer);
      return answer;
    } finally {
      this.done(kind, response, slot);
    }
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
