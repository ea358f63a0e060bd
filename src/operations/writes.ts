import type { Connection } from '../domain/connection.ts';
import type { UpsertOutcome, WriteAnswer } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter } from '../providers/adapter.ts';
import { ensureObjectName, ensureWithin, handlerFor } from './checks.ts';
import { type OperationDeps, runHandler } from './deps.ts';
import { checkFieldNames } from './field-bounds.ts';

/**
 * The write interface a request forces (`X-CRM-Proxy-Interface`), checked against those the CRM
 * has; undefined lets the provider choose by size.
 */
function forcedInterface(adapter: CrmAdapter, requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  const known = adapter.profile.writeInterfaces;
  if (known.includes(requested)) return requested;
  const choices = known.length === 0 ? 'no value here' : known.map((v) => `"${v}"`).join(' or ');
  throw new ApiError(
    'invalid_body',
    `The X-CRM-Proxy-Interface request header takes ${choices} (or leave it out to let the service choose).`,
    { details: [{ path: 'header:x-crm-proxy-interface', value: requested.slice(0, 50) }] },
  );
}

/** Insert or update: one result per record, in order, each on its own. */
async function save(
  deps: OperationDeps,
  connection: Connection,
  operation: 'insert' | 'update',
  objectName: string,
  records: unknown[],
  requested: string | undefined,
): Promise<WriteAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, operation);
  const via = forcedInterface(adapter, requested);
  ensureObjectName(adapter, objectName);
  ensureWithin('too_many_records', records.length, adapter.profile.limits.writeRecords, operation);
  checkFieldNames(records);
  return runHandler(deps, adapter, connection, handler, { objectName, records, via });
}

export function insertRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  records: unknown[],
  requested?: string,
): Promise<WriteAnswer> {
  return save(deps, connection, 'insert', objectName, records, requested);
}

export function updateRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  records: unknown[],
  requested?: string,
): Promise<WriteAnswer> {
  return save(deps, connection, 'update', objectName, records, requested);
}

export async function deleteRecords(
  deps: OperationDeps,
  connection: Connection,
  ids: string[],
  requested?: string,
  objectName?: string,
): Promise<WriteAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'delete');
  const via = forcedInterface(adapter, requested);
  if (objectName !== undefined) ensureObjectName(adapter, objectName);
  ensureWithin('too_many_ids', ids.length, adapter.profile.limits.deleteIds, 'delete');
  return runHandler(deps, adapter, connection, handler, { objectName, ids, via });
}

/** Upsert one record on `match_key`. */
export async function upsertRecord(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  record: unknown,
  matchKey: string,
): Promise<UpsertOutcome> {
  const adapter = deps.registry.adapterFor(connection);
  const handler = handlerFor(adapter, 'upsert');
  ensureObjectName(adapter, objectName);
  checkFieldNames([record]);
  return runHandler(deps, adapter, connection, handler, { objectName, record, matchKey });
}
