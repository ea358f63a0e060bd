import { after, before } from 'node:test';
import {
  type SalesforceSandbox,
  type StartSalesforceSandboxOptions,
  startSalesforceSandbox,
} from '../../../sandbox/salesforce/index.ts';

export interface Call {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or null for an empty body. */
  body: unknown;
}

/** One sandbox per test file, and a fetch helper authenticated with its bootstrap token. */
export function useSandbox(options: StartSalesforceSandboxOptions = {}) {
  const state: { sf: SalesforceSandbox | null } = { sf: null };
  before(async () => {
    state.sf = await startSalesforceSandbox({ port: 0, ...options });
  });
  after(async () => {
    await state.sf?.close();
  });
  const sf = (): SalesforceSandbox => {
    if (state.sf === null) throw new Error('sandbox not started');
    return state.sf;
  };
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Call> => {
    const res = await fetch(`${sf().url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sf().credentials.accessToken}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
  };
  const reset = async () => {
    await fetch(`${sf().url}/__sandbox/reset`, { method: 'POST' });
    await fetch(`${sf().url}/__sandbox/faults`, { method: 'DELETE' });
  };
  const fault = async (kind: string, match: string, times = 1) => {
    await fetch(`${sf().url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: [{ kind, match, times }] }),
    });
  };
  return { sf, call, reset, fault };
}

export const V = '/services/data/v62.0';

/** A record-error array's entries as `code:fields`, for compact assertions. */
export function codes(errors: unknown): string[] {
  return (errors as Array<{ statusCode?: string; errorCode?: string }>).map(
    (e) => e.statusCode ?? e.errorCode ?? '',
  );
}
