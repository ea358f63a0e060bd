import type { RawAnswer } from './raw-http.ts';
import type { FuzzRequest } from './request-arbitrary.ts';

/** What the fuzzer sent and got back, for the report printed after the run. */
export class FuzzStats {
  requests = 0;
  readonly statuses = new Map<number, number>();
  readonly byRoute = new Map<string, Map<number, number>>();
  worstDelayMs = 0;
  worstRequest = '';

  record(request: FuzzRequest, answer: RawAnswer, loopDelayMs: number): void {
    this.requests += 1;
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
    const key = `${request.route.method} ${request.route.template} (${request.crm})`;
    const route = this.byRoute.get(key) ?? new Map<number, number>();
    route.set(answer.status, (route.get(answer.status) ?? 0) + 1);
    this.byRoute.set(key, route);
    if (loopDelayMs > this.worstDelayMs) {
      this.worstDelayMs = loopDelayMs;
      this.worstRequest = request.summary;
    }
  }

  report(): string[] {
    const histogram = (m: Map<number, number>) =>
      [...m.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ');
    return [
      `requests: ${this.requests}`,
      `statuses: ${histogram(this.statuses)}`,
      `worst event-loop delay: ${this.worstDelayMs.toFixed(1)} ms, on: ${this.worstRequest}`,
      ...[...this.byRoute.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([route, m]) => `  ${route}: ${histogram(m)}`),
    ];
  }
}
