// Prometheus metrics (prom-client). The `crm` label is a provider profile id, `none` without a connection.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What the outbound HTTP client reports about each attempt (a structural copy of its CallEvent). */
export interface CrmCallEvent {
  /** `<crm>.<kind>`, e.g. `<crm>.describe.object`. */
  label: string;
  durationMs: number;
  status?: number;
  failure?: string;
  retry?: { waitMs: number; reason: string };
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Where the gauges read from at scrape time. */
export interface MetricsSources {
  jobCounts: () => Promise<Record<string, number>>;
  logLinesDropped: () => number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly #crms: ReadonlySet<string>;
  readonly #httpRequests = new Counter({
    name: 'crm_proxy_http_requests_total',
    help: 'Requests answered, by route template, method, status class and CRM of the token.',
    labelNames: ['route', 'method', 'status_class', 'crm'] as const,
    registers: [this.registry],
  });
  readonly #httpDuration = new Histogram({
    name: 'crm_proxy_http_request_duration_seconds',
    help: 'Time from the request arriving to the answer sent, by route template and CRM.',
    labelNames: ['route', 'crm'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  readonly #rateLimitedSent = new Counter({
    name: 'crm_proxy_rate_limited_sent_total',
    help: "429 answers sent by the service's own per-token rate limit, by CRM.",
    labelNames: ['crm'] as const,
    registers: [this.registry],
  });
  readonly #crmCalls = new Counter({
    name: 'crm_proxy_crm_calls_total',
    help: 'Final attempts of calls to a CRM, by CRM, kind and outcome (2xx..5xx, or the network failure).',
    labelNames: ['crm', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #crmDuration = new Histogram({
    name: 'crm_proxy_crm_call_duration_seconds',
    help: 'Duration of each attempt of a call to a CRM, by CRM and kind.',
    labelNames: ['crm', 'kind'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  readonly #crmRetries = new Counter({
    name: 'crm_proxy_crm_retries_total',
    help: 'Attempts of CRM calls that were retried, by CRM, kind and reason.',
    labelNames: ['crm', 'kind', 'reason'] as const,
    registers: [this.registry],
  });
  readonly #crm429 = new Counter({
    name: 'crm_proxy_crm_rate_limited_received_total',
    help: '429 answers received from a CRM (each attempt), by CRM and kind.',
    labelNames: ['crm', 'kind'] as const,
    registers: [this.registry],
  });
  readonly #tokenRefreshes = new Counter({
    name: 'crm_proxy_token_refreshes_total',
    help: 'Access token refreshes sent to a CRM (final attempts), by CRM and outcome.',
    labelNames: ['crm', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly #allowanceUsed = new Gauge({
    name: 'crm_proxy_crm_daily_allowance_used',
    help: "API calls of the CRM account's daily allowance used, as the CRM's last answer reported it, by CRM and connection.",
    labelNames: ['crm', 'connection'] as const,
    registers: [this.registry],
  });
  readonly #allowanceLeft = new Gauge({
    name: 'crm_proxy_crm_daily_allowance_left',
    help: "API calls left of the CRM account's daily allowance, as the CRM's last answer reported it, by CRM and connection.",
    labelNames: ['crm', 'connection'] as const,
    registers: [this.registry],
  });
  readonly #pacerWaits = new Counter({
    name: 'crm_proxy_crm_pacer_waits_total',
    help: "Calls the service held back to stay under a CRM's rate limit (instead of being refused), by CRM and kind.",
    labelNames: ['crm', 'kind'] as const,
    registers: [this.registry],
  });
  readonly #pacerWaitSeconds = new Counter({
    name: 'crm_proxy_crm_pacer_wait_seconds_total',
    help: "Time calls spent held back under a CRM's rate limit, by CRM and kind.",
    labelNames: ['crm', 'kind'] as const,
    registers: [this.registry],
  });

  /** `crms`: the provider profile ids; any other label prefix is counted as `other`. */
  constructor(crms: readonly string[], sources: MetricsSources) {
    this.#crms = new Set(crms);
    new Counter({
      name: 'crm_proxy_log_lines_dropped_total',
      help: 'Log lines dropped because the reader of stdout was full, slow or gone (requests are never held for a log line).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(sources.logLinesDropped());
      },
    });
    // Read from the store at each scrape: the jobs of every instance sharing it.
    new Gauge({
      name: 'crm_proxy_jobs',
      help: 'Durable jobs in the store, by state.',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await sources.jobCounts();
        this.reset();
        for (const state of ['queued', 'running', 'completed', 'failed', 'cancelled']) {
          this.set({ state }, counts[state] ?? 0);
        }
      },
    });
    // Process CPU, memory, GC, and event-loop lag (nodejs_eventloop_lag_*), prefixed.
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'crm_proxy_',
      eventLoopMonitoringPrecision: 20,
    });
  }

  /** One answered request. `route` is the route template (never the raw URL: bounded label values). */
  recordRequest(r: {
    route: string;
    method: string;
    status: number;
    crm: string | undefined;
    seconds: number;
  }) {
    const crm = this.#crmLabel(r.crm);
    this.#httpRequests.inc({
      route: r.route,
      method: r.method,
      status_class: `${Math.floor(r.status / 100)}xx`,
      crm,
    });
    this.#httpDuration.observe({ route: r.route, crm }, r.seconds);
    if (r.status === 429) this.#rateLimitedSent.inc({ crm });
  }

  recordCrmCall(event: CrmCallEvent): void {
    const dot = event.label.indexOf('.');
    const crm = this.#crmLabel(dot > 0 ? event.label.slice(0, dot) : event.label);
    const kind = dot > 0 ? event.label.slice(dot + 1) : 'call';
    this.#crmDuration.observe({ crm, kind }, event.durationMs / 1000);
    if (event.status === 429) this.#crm429.inc({ crm, kind });
    if (event.retry !== undefined) {
      this.#crmRetries.inc({ crm, kind, reason: event.retry.reason });
      return;
    }
    const outcome =
      event.status !== undefined ? `${Math.floor(event.status / 100)}xx` : (event.failure ?? 'unknown');
    this.#crmCalls.inc({ crm, kind, outcome });
    if (kind === 'oauth.refresh') this.#tokenRefreshes.inc({ crm, outcome });
  }

  recordAllowance(crm: string, connectionId: string, allowance: { used: number; limit: number }): void {
    const labels = { crm: this.#crmLabel(crm), connection: connectionId };
    this.#allowanceUsed.set(labels, allowance.used);
    this.#allowanceLeft.set(labels, Math.max(0, allowance.limit - allowance.used));
  }

  /** A call held back `waitMs` by a CRM's pacing. */
  recordPacerWait(crm: string, kind: string, waitMs: number): void {
    const labels = { crm: this.#crmLabel(crm), kind };
    this.#pacerWaits.inc(labels);
    this.#pacerWaitSeconds.inc(labels, waitMs / 1000);
  }

  #crmLabel(crm: string | undefined): string {
    if (crm === undefined) return 'none';
    return this.#crms.has(crm) ? crm : 'other';
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
