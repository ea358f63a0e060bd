import { AsyncLocalStorage } from 'node:async_hooks';

/** Which request and job a piece of work belongs to; outbound CRM calls are logged with it. */
export interface CallContext {
  requestId?: string | undefined;
  jobId?: string | undefined;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with `context` visible to every call it makes, however deep. */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

/** The request id and job id of the work in progress (empty outside any). */
export function currentCallContext(): CallContext {
  return storage.getStore() ?? {};
}
