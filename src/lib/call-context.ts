// The request and job the work in progress belongs to (one AsyncLocalStorage scope), so outbound
// CRM calls are logged with their ids and counted on the request's meter.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What one inbound request spent on the CRM: every outbound attempt made while serving it. */
export interface RequestMeter {
  crmCalls: number;
  /** Headers of the latest CRM answer (for allowance headers); never logged. */
  lastHeaders: Record<string, string | string[] | undefined> | undefined;
}

/** The request's trace (when tracing is on): a span for each outbound CRM call. */
export interface TraceScope {
  /** Starts the span of one CRM call; `headers` (`traceparent`) go with the call. */
  outbound(
    method: string,
    url: string,
  ): { headers: Record<string, string>; end(status?: number, error?: unknown): void };
}

export interface CallContext {
  requestId?: string | undefined;
  jobId?: string | undefined;
  meter?: RequestMeter | undefined;
  trace?: TraceScope | undefined;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with `context` (added to the one it runs in) visible to every call it makes, however deep. */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

/** The request id and job id of the work in progress (undefined outside any: a log line leaves them out). */
export function currentCallIds(): Pick<CallContext, 'requestId' | 'jobId'> {
  const store = storage.getStore();
  return { requestId: store?.requestId, jobId: store?.jobId };
}

export function meterCrmCall(headers?: Record<string, string | string[] | undefined>): void {
  const meter = storage.getStore()?.meter;
  if (meter === undefined) return;
  meter.crmCalls++;
  if (headers !== undefined) meter.lastHeaders = headers;
}

export function traceOutbound(method: string, url: string): ReturnType<TraceScope['outbound']> | undefined {
  return storage.getStore()?.trace?.outbound(method, url);
}
