import type { Connection } from '../domain/connection.ts';
import type { UpsertOutcome, WriteAnswer } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import type { CrmAdapter, JobHook, OperationInputs } from '../providers/adapter.ts';
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

/** A write of many records that may run as a durable job: the operation and its checked input. */
export type BatchWrite =
  | { operation: 'insert'; input: OperationInputs['insert'] }
  | { operation: 'update'; input: OperationInputs['update'] }
  | { operation: 'delete'; input: OperationInputs['delete'] };

/** Records (or ids) the write carries. */
export function sizeOf(write: BatchWrite): number {
  return write.operation === 'delete' ? write.input.ids.length : write.input.records.length;
}

/**
 * Checks a batch write before anything is stored or sent (400/404/422 here, never inside a job)
 * and resolves the forced interface. Returns the input the handler will get.
 */
export function checkBatchWrite(
  deps: OperationDeps,
  connection: Connection,
  write: {
    operation: BatchWrite['operation'];
    objectName?: string;
    items: unknown[];
    requested?: string | undefined;
  },
): BatchWrite {
  const adapter = deps.registry.adapterFor(connection);
  handlerFor(adapter, write.operation);
  const via = forcedInterface(adapter, write.requested);
  if (write.operation === 'delete') {
    // Ids of some CRMs do not name their object type: the route may carry it.
    if (write.objectName !== undefined) ensureObjectName(adapter, write.objectName);
    ensureWithin('too_many_ids', write.items.length, adapter.profile.limits.deleteIds, 'delete');
    return {
      operation: 'delete',
      input: { objectName: write.objectName, ids: write.items as string[], via },
    };
  }
  const objectName = write.objectName ?? '';
  ensureObjectName(adapter, objectName);
  ensureWithin('too_many_records', write.items.length, adapter.profile.limits.writeRecords, write.operation);
  checkFieldNames(write.items);
  return { operation: write.operation, input: { objectName, records: write.items, via } };
}

/** Runs a checked batch write; `job` is set when it runs as a durable job. */
export function runBatchWrite(
  deps: OperationDeps,
  connection: Connection,
  write: BatchWrite,
  job?: JobHook,
): Promise<WriteAnswer> {
  const adapter = deps.registry.adapterFor(connection);
  switch (write.operation) {
    case 'insert':
      return runHandler(deps, adapter, connection, handlerFor(adapter, 'insert'), write.input, job);
    case 'update':
      return runHandler(deps, adapter, connection, handlerFor(adapter, 'update'), write.input, job);
    case 'delete':
      return runHandler(deps, adapter, connection, handlerFor(adapter, 'delete'), write.input, job);
  }
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
