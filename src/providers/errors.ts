import { redactValue } from '../lib/redact.ts';
import { OutboundNetworkError, type OutboundResponse, parseJson } from './client/types.ts';

/**
 * A CRM call that failed as a whole (not a per-record failure): the CRM answered with an error
 * status, or could not be reached. Carries the CRM's own error body, which the client gets in `details`.
 */
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

/** CrmError from an error answer, keeping the CRM's body (JSON when it is JSON, else trimmed text). */
export function crmErrorFromResponse(provider: string, response: OutboundResponse, what: string): CrmError {
  const json = parseJson<unknown>(response);
  const body = json ?? (response.text.length > 500 ? `${response.text.slice(0, 500)}…` : response.text);
  return new CrmError(provider, 'crm_error', `${what} failed with status ${response.status}`, {
    status: response.status,
    crmBody: body,
  });
}

/** Runs an outbound call and turns "could not reach the CRM" into a CrmError. */
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
