import { ApiError } from '../errors/index.ts';
import { type CrmAdapter, type OperationName, offers } from '../providers/adapter.ts';
import { CrmError } from '../providers/errors.ts';

const LABEL: Record<OperationName, string> = {
  insert: 'insert',
  upsert: 'upsert',
  update: 'update',
  delete: 'delete',
  get: 'get',
  query: 'query (soql)',
  describe: 'describe',
  add_custom_field: 'add_custom_field',
  passthrough: 'pass-through (proxy)',
};

const CRM_NAME = { salesforce: 'Salesforce', hubspot: 'HubSpot' } as const;

/** 422 when the connection's CRM does not offer the operation (spec §1), naming what it does offer. */
export function ensureOffered(adapter: CrmAdapter, operation: OperationName): void {
  if (offers(adapter, operation)) return;
  const offered = adapter.capabilities.operations;
  throw new ApiError(
    'operation_not_available',
    `${LABEL[operation]} is not available for ${CRM_NAME[adapter.provider]} connections. ${CRM_NAME[adapter.provider]} offers: ${offered.map((o) => LABEL[o]).join(', ')}.`,
    { details: [{ operation, provider: adapter.provider, available_operations: [...offered] }] },
  );
}

/** The object name is checked against the provider's pattern before it goes anywhere near a URL. */
export function ensureObjectName(adapter: CrmAdapter, objectName: string): void {
  if (adapter.capabilities.objectName.pattern.test(objectName)) return;
  throw new ApiError(
    'invalid_object_name',
    `"${objectName.slice(0, 100)}" is not a valid ${CRM_NAME[adapter.provider]} object name. Use an API name such as ${adapter.capabilities.objectName.example}.`,
    { details: [{ path: '/object_name', value: objectName.slice(0, 100) }] },
  );
}

/** 501 for operations whose routes, schemas and limits exist but whose CRM calls are not built yet. */
export function notImplemented(operation: OperationName, provider: CrmAdapter['provider']): ApiError {
  return new ApiError(
    'not_implemented',
    `${LABEL[operation]} for ${CRM_NAME[provider]} is not implemented in this version of the service. The request was valid; nothing was sent to ${CRM_NAME[provider]}.`,
    { details: [{ operation, provider }] },
  );
}

export function tooMany(
  code: 'too_many_records' | 'too_many_ids',
  got: number,
  limit: number,
  what: string,
): ApiError {
  const noun = code === 'too_many_ids' ? 'ids' : 'records';
  return new ApiError(
    code,
    `${what} takes at most ${limit} ${noun} per request; this one has ${got}. Split it into requests of ${limit} or fewer.`,
    { details: [{ path: code === 'too_many_ids' ? '/data/ids' : '/data', limit, received: got }] },
  );
}

/** A CRM failure as the client sees it: 502 with the CRM's own error in `details`. */
export function fromCrmError(error: unknown): unknown {
  if (!(error instanceof CrmError)) return error;
  const crm = error.provider === 'hubspot' ? 'HubSpot' : 'Salesforce';
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
export async function translatingCrmErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fromCrmError(error);
  }
}
