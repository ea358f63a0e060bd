import type { Clock } from '../../lib/clock.ts';
import type { SharedState } from '../../lib/shared-state.ts';
import { headerValue, type OutboundResponse } from '../client/types.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

export type CallKind = 'standard' | 'search';

/** A connection's daily allowance is used up (message: JSON `{ connectionId, until, crmError }`). */
export const DAILY_SPENT = 'hubspot-daily-spent';

/** Until when (epoch ms) the account's daily allowance is used up, and HubSpot's refusal. */
export interface DailySpent {
  until: number;
  crmError: unknown;
}

/** Our calls in a rolling window, each held until one window after its answer: never over the limit. */
class Window {
  max: number;
  windowMs: number;
  inFlight = 0;
  /** Answer times of finished calls still in the window, oldest first. */
  readonly finished: number[] = [];
  /** Slots HubSpot reports as used by other clients, kept free until `foreignUntil`. */
  foreign = 0;
  foreignUntil = 0;
  /** No call leaves before this instant (after a 429). */
  blockedUntil = 0;
  /** One call at a time until an answer's headers tell the real limit. */
  probing: boolean;
  /** Calls of all instances in the shared window at our last reservation. */
  sharedCount = 0;
  readonly queue: Array<() => void> = [];
  /** The pending wake-up of the queue; aborted when a sooner one replaces it. */
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
  /** Windows shared with the other instances under `sharedKey`, so all together stay under the limit. */
  shared?: SharedState | undefined;
  sharedKey?: string;
  /** Metrics: a call was held back `waitMs`. */
  onWait?: ((kind: CallKind, waitMs: number) => void) | undefined;
}

/** Paces a connection's calls under HubSpot's limits (as its headers tell them) instead of failing. */
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

  /** Waits for a slot; the caller passes what this returns (the shared hold) to `done`. */
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
    // With this instance's slot held, one in the window all instances share.
    const shared = this.#shared;
    while (shared !== undefined && slot === undefined) {
      const answer = await shared.reserveSlot(`${this.#sharedKey}:${kind}`, w.capacity(), w.windowMs);
      w.sharedCount = answer.count;
      if (answer.ok) slot = answer.id;
      else {
        held = true;
        await this.#clock.sleep(Math.min(answer.waitMs, w.windowMs));
      }
    }
    if (held) this.#onWait?.(kind, this.#clock.now() - asked);
    return slot;
  }

  /** The call is over: its slot starts its window now, and the answer's headers adjust the window. */
  done(kind: CallKind, response: OutboundResponse | undefined, slot?: string): void {
    const w = this.#windows[kind];
    const now = this.#clock.now();
    if (slot !== undefined) void this.#shared?.finishSlot(`${this.#sharedKey}:${kind}`, slot, w.windowMs);
    w.inFlight = Math.max(0, w.inFlight - 1);
    // Each attempt of a resent read was a HubSpot call.
    const attempts = Math.max(1, Math.min(10, response?.attempts ?? 1));
    for (let i = 0; i < attempts; i++) w.finished.push(now);
    if (response !== undefined) {
      w.probing = false;
      if (kind === 'standard') this.#adapt(w, response, now);
    }
    this.#pump(kind);
  }

  /** One call sent in a slot of its kind. */
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

  /** The daily limit is spent: calls are refused unsent until `until`, on every instance when shared. */
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

  /** How long until a slot frees up by itself. */
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
    // Of HubSpot's `max - remaining`, ours in the window are a lower bound; the rest are others'.
    const others = w.max - remaining - Math.max(w.finished.length + w.inFlight, w.sharedCount);
    if (others > w.foreign || now >= w.foreignUntil) {
      w.foreign = Math.max(0, others);
      w.foreignUntil = now + w.windowMs;
    }
  }

  /** Lets waiting calls go while there is room, then sleeps until the window changes. */
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
