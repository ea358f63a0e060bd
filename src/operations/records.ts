import type { Connection } from '../domain/connection.ts';
import type { AssociationLink, GetAnswer, WriteAnswer } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter } from '../providers/adapter.ts';
import { ensureObjectName, ensureWithin } from './checks.ts';
import { type OperationDeps, runOperation } from './deps.ts';

export interface GetInput {
  ids: string[];
  fields?: string[] | undefined;
  /** Properties whose past values each record carries too, where the CRM keeps them. */
  propertiesWithHistory?: string[] | undefined;
}

/** Get records by id: one entry per id passed, in order; `null` where no record exists. */
export function getRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  input: GetInput,
): Promise<GetAnswer> {
  const history = input.propertiesWithHistory ?? [];
  const check = (adapter: CrmAdapter) => {
    ensureWithin(
      'too_many_ids',
      input.ids.length,
      adapter.profile.limits.getIds,
      `get on ${adapter.profile.id}`,
    );
    if (history.length === 0) return;
    const limit = adapter.profile.limits.getIdsWithHistory;
    if (limit === undefined) {
      throw new ApiError(
        'invalid_body',
        `${adapter.profile.displayName} keeps no property history this service can read: leave out propertiesWithHistory.`,
        { details: [{ path: '/data/propertiesWithHistory', message: 'not offered by this CRM' }] },
      );
    }
    ensureWithin('too_many_ids', input.ids.length, limit, 'get with propertiesWithHistory');
  };
  const { ids, fields } = input;
  const propertiesWithHistory = history.length > 0 ? history : undefined;
  return runOperation(deps, connection, 'get', { objectName, ids, fields, propertiesWithHistory }, { check });
}

/** Creates or removes associations: one result per link, in order. */
export function writeAssociations(
  deps: OperationDeps,
  connection: Connection,
  operation: 'associate' | 'dissociate',
  objectName: string,
  links: AssociationLink[],
): Promise<WriteAnswer> {
  const check = (adapter: CrmAdapter) => {
    for (const to of new Set(links.map((l) => l.to))) ensureObjectName(adapter, to);
    ensureWithin('too_many_records', links.length, adapter.profile.limits.writeRecords, operation);
  };
  return runOperation(deps, connection, operation, { objectName, links }, { check });
}
