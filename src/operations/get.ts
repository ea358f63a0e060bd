import type { Connection } from '../domain/connection.ts';
import type { GetAnswer } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import { ensureObjectName, ensureWithin, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';

export interface GetInput {
  ids: string[];
  fields?: string[] | undefined;
  /** Properties whose past values each record carries too, where the CRM keeps them. */
  propertiesWithHistory?: string[] | undefined;
}

/**
 * Get records by id: one entry per id passed, in order; `null` where no record exists. How the
 * ids are fetched (batches, parallel calls, id checks) is the provider's.
 */
export async function getRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  input: GetInput,
): Promise<GetAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'get');
  ensureObjectName(adapter, objectName);
  ensureWithin(
    'too_many_ids',
    input.ids.length,
    adapter.profile.limits.getIds,
    `get on ${adapter.profile.id}`,
  );
  const history = input.propertiesWithHistory ?? [];
  if (history.length > 0) {
    const limit = adapter.profile.limits.getIdsWithHistory;
    if (limit === undefined) {
      throw new ApiError(
        'invalid_body',
        `${adapter.profile.displayName} keeps no property history this service can read: leave out propertiesWithHistory.`,
        { details: [{ path: '/data/propertiesWithHistory', message: 'not offered by this CRM' }] },
      );
    }
    ensureWithin('too_many_ids', input.ids.length, limit, 'get with propertiesWithHistory');
  }
  return runHandler(deps, adapter, connection, handler, {
    objectName,
    ids: input.ids,
    fields: input.fields,
    propertiesWithHistory: history.length > 0 ? history : undefined,
  });
}
