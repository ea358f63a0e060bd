import type { RecordError } from '../domain/operations.ts';
import { redactValue } from '../lib/redact.ts';
import { OutboundNetworkError, type OutboundResponse, parseJson } from './client/types.ts';

/** A CRM call that failed as a whole (error status or unreachable), with the CRM's own error body. */
export class CrmError extends Error {
  readonly kind: 'crm_error' | 'unreachable' | 'auth_rejected';
  readonly provider: string;
  readonly status: number | undefined;
  readonly crmBody: unknown;

  constructor(
    provider: string,
    kind: CrmError['kind'],
    message: string,
    options: { status?: number; crmBody?: unknown; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CrmError';
    this.provider = provider;
    this.kind = kind;
    this.status = options.status;
    // The CRM's body is shown to the client and may reach logs: mask anything token-like first.
    this.crmBody = redactValue(options.crmBody);
  }
}

/** Keeps the CRM's body: JSON when it is JSON, else trimmed text. */
export function crmErrorFromResponse(provider: string, response: OutboundResponse, what: string): CrmError {
  const json = parseJson<unknown>(response);
  const body = json ?? (response.text.length > 500 ? `${response.text.slice(0, 500)}…` : response.text);
  return new CrmError(provider, 'crm_error', `${what} failed with status ${response.status}`, {
    status: response.status,
    crmBody: body,
  });
}

/** Turns "could not reach the CRM" into a CrmError. */
export async function unreachableAsCrmError<T>(
  provider: string,
  what: string,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof OutboundNetworkError) {
      const message = `${what}: ${error.kind.replace('_', ' ')} after ${error.attempts} attempt(s)`;
      throw new CrmError(provider, 'unreachable', message, { cause: error });
    }
    throw error;
  }
}

/** True when a failed call got no answer after it was sent (timeout, dropped connection). */
export function mayHaveApplied(error: unknown): boolean {
  if (!(error instanceof CrmError) || error.kind !== 'unreachable') return false;
  return !(error.cause instanceof OutboundNetworkError && error.cause.kind === 'connect_failed');
}

/** The entry of each record of a write call that failed as a whole; `own` reads the CRM's error body. */
export function callFailure(
  crm: string,
  error: unknown,
  what: string,
  own: (body: unknown) => { code?: unknown; message?: unknown } | undefined,
): RecordError | undefined {
  if (!(error instanceof CrmError)) return undefined;
  const entry = (statusCode: string, message: string): RecordError => ({ statusCode, message, fields: [] });
  if (error.kind === 'unreachable') {
    return mayHaveApplied(error)
      ? entry(
          'CRM_PROXY_OUTCOME_UNKNOWN',
          `The ${what} call to ${crm} got no answer (${error.message}); it was not resent, because ${crm} may have applied it. Check the records before sending them again.`,
        )
      : entry(
          'CRM_PROXY_NOT_SENT',
          `The ${what} call could not reach ${crm} (${error.message}); nothing was written. Send the records again.`,
        );
  }
  const body = own(error.crmBody);
  return entry(
    String(body?.code ?? `HTTP_${error.status ?? 'ERROR'}`),
    `The ${what} call failed with status ${error.status ?? '?'}: ${String(body?.message ?? error.message)}. Nothing was resent.`,
  );
}
