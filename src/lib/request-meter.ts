// What one inbound request spent on the CRM: every outbound attempt made while serving it is
// counted here, through an AsyncLocalStorage scope opened by the HTTP layer. Calls made outside a
// request (start-up checks, background work) have no meter and count nowhere.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestMeter {
  crmCalls: number;
  /** Headers of the latest CRM answer (for allowance headers); never logged. */
  lastHeaders: Record<string, string | string[] | undefined> | undefined;
}

const scope = new AsyncLocalStorage<RequestMeter>();

export function newMeter(): RequestMeter {
  return { crmCalls: 0, lastHeaders: undefined };
}

/** Runs `fn` (and everything it starts) with `meter` as the current request's meter. */
export function withMeter<T>(meter: RequestMeter, fn: () => T): T {
  return scope.run(meter, fn);
}

/** One CRM call attempt; `headers` when it was answered. */
export function meterCrmCall(headers?: Record<string, string | string[] | undefined>): void {
  const meter = scope.getStore();
  if (meter === undefined) return;
  meter.crmCalls++;
  if (headers !== undefined) meter.lastHeaders = headers;
}
