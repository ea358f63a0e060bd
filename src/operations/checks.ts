import { OPERATIONS, type OperationName } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter, OperationHandlers } from '../providers/adapter.ts';
import { CrmError } from '../providers/errors.ts';

/** How an error message names an operation, where that is not its own name. */
const LABELS: Partial<Record<OperationName, string>> = {
  query: 'query (soql)',
  search: 'query (search)',
  passthrough: 'pass-through (proxy)',
};
const label = (operation: OperationName) => LABELS[operation] ?? operation;

/**
 * The adapter's handler of an operation (or its pass-through rules), else 422 naming what its CRM
 * offers and, given every adapter (`all`), the CRMs that offer the operation.
 */
export function handlerFor<O extends OperationName>(
  adapter: CrmAdapter,
  operation: O,
  all?: readonly CrmAdapter[],
): NonNullable<OperationHandlers[O]> {
  const handler = adapter.handlers[operation];
  if (handler !== undefined) return handler;
  const offered = OPERATIONS.filter((o) => adapter.handlers[o] !== undefined);
  const crm = adapter.profile.displayName;
  const by = all?.filter((a) => a.handlers[operation] !== undefined) ?? [];
  const only =
    by.length > 0
      ? ` It is offered for ${by.map((a) => a.profile.displayName).join(' and ')} connections only.`
      : '';
  throw new ApiError(
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

/** Runs an operation body; a CRM failure becomes a 502 with the CRM's own error in `details`. */
export async function translatingCrmErrors<T>(adapter: CrmAdapter, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof CrmError)) throw error;
    const crm = adapter.profile.displayName;
    if (error.kind === 'unreachable') {
      throw new ApiError('crm_unreachable', `${crm} could not be reached (${error.message}). Retry later.`, {
        details: [{ provider: error.provider }],
        cause: error,
      });
    }
    throw new ApiError(
      'crm_error',
      `${crm} answered with an error (${error.message}). See details for ${crm}'s own error.`,
      {
        details: [
          { provider: error.provider, status: error.status ?? null, crm_error: error.crmBody ?? null },
        ],
        cause: error,
      },
    );
  }
}
