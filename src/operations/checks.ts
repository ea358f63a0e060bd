import { OPERATIONS, type OperationName } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter, Handler, OperationHandlers, OperationInputs } from '../providers/adapter.ts';
import { CrmError } from '../providers/errors.ts';

/** How an error message names an operation, where that is not its own name. */
const LABELS: Partial<Record<OperationName, string>> = {
  query: 'query (soql)',
  search: 'query (search)',
  passthrough: 'pass-through (proxy)',
};
const label = (operation: OperationName) => LABELS[operation] ?? operation;

/**
 * 422 `operation_not_available`, naming what the connection's CRM does offer (its handler table's
 * keys) and, when the other adapters are given, the CRMs that offer the operation.
 */
function notOffered(adapter: CrmAdapter, operation: OperationName, all?: readonly CrmAdapter[]): ApiError {
  const offered = OPERATIONS.filter((o) => adapter.handlers[o] !== undefined);
  const crm = adapter.profile.displayName;
  const by = all?.filter((a) => a.handlers[operation] !== undefined) ?? [];
  const only =
    by.length > 0
      ? ` It is offered for ${by.map((a) => a.profile.displayName).join(' and ')} connections only.`
      : '';
  return new ApiError(
    'operation_not_available',
    `${label(operation)} is not available for ${crm} connections.${only} ${crm} offers: ${offered.map(label).join(', ')}.`,
    {
      details: [
        {
          operation,
          provider: adapter.profile.id,
          available_operations: offered,
          ...(by.length > 0 ? { offered_by: by.map((a) => a.profile.id) } : {}),
        },
      ],
    },
  );
}

/**
 * The adapter's handler of an operation, or 422 when its CRM does not offer it; `all` (every
 * adapter) lets the answer name the CRMs that do.
 */
export function handlerFor<O extends keyof OperationInputs>(
  adapter: CrmAdapter,
  operation: O,
  all?: readonly CrmAdapter[],
): Handler<O> {
  const handler = (adapter.handlers as OperationHandlers)[operation] as Handler<O> | undefined;
  if (handler === undefined) throw notOffered(adapter, operation, all);
  return handler;
}

/** The adapter's pass-through rules, or 422 when its CRM does not offer pass-through. */
export function passthroughOf(adapter: CrmAdapter): NonNullable<OperationHandlers['passthrough']> {
  const rules = adapter.handlers.passthrough;
  if (rules === undefined) throw notOffered(adapter, 'passthrough');
  return rules;
}

/** The object name is checked against the provider's pattern before it goes anywhere near a URL. */
export function ensureObjectName(adapter: CrmAdapter, objectName: string): void {
  const { pattern, example } = adapter.profile.objectName;
  if (pattern.test(objectName)) return;
  throw new ApiError(
    'invalid_object_name',
    `"${objectName.slice(0, 100)}" is not a valid ${adapter.profile.displayName} object name. Use an API name such as ${example}.`,
    { details: [{ path: '/object_name', value: objectName.slice(0, 100) }] },
  );
}

/** 400 when a request carries more ids or records than the CRM's profile allows. */
export function ensureWithin(
  code: 'too_many_records' | 'too_many_ids',
  got: number,
  limit: number,
  what: string,
): void {
  if (got <= limit) return;
  const noun = code === 'too_many_ids' ? 'ids' : 'records';
  throw new ApiError(
    code,
    `${what} takes at most ${limit} ${noun} per request; this one has ${got}. Split it into requests of ${limit} or fewer.`,
    { details: [{ path: code === 'too_many_ids' ? '/data/ids' : '/data', limit, received: got }] },
  );
}

/** A CRM failure as the client sees it: 502 with the CRM's own error in `details`. */
function fromCrmError(adapter: CrmAdapter, error: unknown): unknown {
  if (!(error instanceof CrmError)) return error;
  const crm = adapter.profile.displayName;
  if (error.kind === 'unreachable') {
    return new ApiError('crm_unreachable', `${crm} could not be reached (${error.message}). Retry later.`, {
      details: [{ provider: error.provider }],
      cause: error,
    });
  }
  return new ApiError(
    'crm_error',
    `${crm} answered with an error (${error.message}). See details for ${crm}'s own error.`,
    {
      details: [{ provider: error.provider, status: error.status ?? null, crm_error: error.crmBody ?? null }],
      cause: error,
    },
  );
}

/** Runs an operation body, translating CRM failures into API errors at one place. */
export async function translatingCrmErrors<T>(adapter: CrmAdapter, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fromCrmError(adapter, error);
  }
}
