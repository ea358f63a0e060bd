import { Agent, errors, request } from 'undici';
import { meterCrmCall, traceOutbound } from '../../lib/call-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { redactUrl } from '../../lib/redact.ts';
import { retrying } from '../../lib/retry.ts';
import {
  type AttemptFailure,
  DEFAULT_RETRY_POLICY,
  decide,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.ts';
import {
  type CallEvent,
  type CallHook,
  headerValue,
  OutboundNetworkError,
  type OutboundRequest,
  type OutboundResponse,
} from './types.ts';

export interface HttpClientOptions {
  /** Per-attempt bound on each silence (headers, then body); the whole attempt gets twice that. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Waits between attempts run on this clock; Retry-After dates are read against it. */
  clock: Clock;
}

const NETWORK_CODES: Record<string, OutboundNetworkError['kind']> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_failed',
  ECONNREFUSED: 'connect_failed',
  ENOTFOUND: 'connect_failed',
  EAI_AGAIN: 'connect_failed',
  EHOSTUNREACH: 'connect_failed',
  ENETUNREACH: 'connect_failed',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'connection_dropped',
  ECONNRESET: 'connection_dropped',
  EPIPE: 'connection_dropped',
  UND_ERR_CLOSED: 'connection_dropped',
};

/** An answer or a network failure, and the wait before the next attempt when there is one. */
type AttemptOutcome = ({ response: OutboundResponse } | { error: OutboundNetworkError }) & {
  retryWaitMs?: number | undefined;
};

function classify(error: unknown): OutboundNetworkError['kind'] | null {
  let current: unknown = error;
  // undici wraps socket errors; the code can sit on the error or on its cause.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(NETWORK_CODES, code)) return NETWORK_CODES[code] ?? null;
    current = current.cause;
  }
  return null;
}

/** The one outbound HTTP client: retries, Retry-After, timeouts and call hooks; no CRM authentication. */
export class HttpClient {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #policy: RetryPolicy;
  readonly #hooks: CallHook[] = [];
  readonly #clock: Clock;

  constructor(options: HttpClientOptions) {
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#agent = new Agent({
      connections: 32,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: 10_000,
    });
  }

  addHook(hook: CallHook): void {
    this.#hooks.push(hook);
  }

  async send(req: OutboundRequest): Promise<OutboundResponse> {
    const timeout = req.timeoutMs ?? this.#timeoutMs;
    const last = await retrying(this.#clock, {
      attempt: (n) => this.#attempt(req, n, timeout),
      next: (outcome) => outcome.retryWaitMs,
    });
    if ('error' in last) throw last.error;
    return last.response;
  }

  async #attempt(req: OutboundRequest, attempt: number, timeout: number): Promise<AttemptOutcome> {
    const started = performance.now();
    // The timeouts bound silences; this bounds the whole attempt against a CRM that trickles its answer.
    const attemptAbort = new AbortController();
    const deadline = setTimeout(() => attemptAbort.abort(new errors.BodyTimeoutError()), 2 * timeout);
    let failure: AttemptFailure;
    let outcome: AttemptOutcome;
    const span = traceOutbound(req.method, req.url);
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: span === undefined ? req.headers : { ...req.headers, ...span.headers },
        body: typeof req.body === 'function' ? req.body() : req.body,
        dispatcher: this.#agent,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: attemptAbort.signal,
      });
      const read = res.statusCode >= 200 && res.statusCode < 300 ? req.read : undefined;
      const text = await (read === undefined ? res.body.text() : read(res.body).then(() => '')).finally(() =>
        clearTimeout(deadline),
      );
      outcome = { response: { status: res.statusCode, headers: res.headers, attempts: attempt, text } };
      span?.end(res.statusCode);
      meterCrmCall(res.headers);
      if (res.statusCode < 500 && (res.statusCode !== 429 || req.ownRateLimit === true)) {
        this.#emit(req, attempt, started, { status: res.statusCode });
        return outcome;
      }
      failure = {
        kind: 'status',
        status: res.statusCode,
        idempotent: req.idempotent,
        retryAfterMs: parseRetryAfter(headerValue(res.headers, 'retry-after'), this.#clock.now()),
      };
    } catch (thrown) {
      clearTimeout(deadline);
      span?.end(undefined, thrown);
      meterCrmCall();
      const kind = classify(thrown);
      if (kind === null) throw thrown;
      outcome = { error: new OutboundNetworkError(kind, attempt, thrown) };
      failure = { kind, idempotent: req.idempotent };
    }
    const decision = decide(failure, attempt, this.#policy);
    this.#emit(req, attempt, started, {
      status: 'response' in outcome ? outcome.response.status : undefined,
      failure: failure.kind === 'status' ? undefined : failure.kind,
      retry: decision.retry ? { waitMs: decision.waitMs, reason: decision.reason } : undefined,
    });
    return { ...outcome, retryWaitMs: decision.retry ? decision.waitMs : undefined };
  }

  #emit(
    req: OutboundRequest,
    attempt: number,
    started: number,
    extra: Pick<CallEvent, 'status' | 'failure' | 'retry'>,
  ): void {
    if (this.#hooks.length === 0) return;
    const durationMs = Math.round(performance.now() - started);
    const event = {
      label: req.label,
      method: req.method,
      url: redactUrl(req.url),
      attempt,
      durationMs,
      ...extra,
    };
    for (const hook of this.#hooks) hook(event);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
