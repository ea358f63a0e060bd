import type { Connection } from '../domain/connection.ts';
import type { UpsertOutcome, WriteAnswer } from '../domain/operations.ts';
import { ApiError } from '../errors/index.ts';
import { isRecord } from '../lib/is-record.ts';
import type { CrmAdapter, JobHook, OperationInputs } from '../providers/adapter.ts';
import { ensureObjectName, ensureWithin, handlerFor } from './checks.ts';
import { type OperationDeps, runOperation } from './deps.ts';
import { checkFieldNames } from './field-bounds.ts';

/** The write interface a request forces (`X-CRM-Proxy-Interface`); undefined lets the provider choose. */
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

const MAX_ID_LENGTH = 255;
/** Problems reported per request; the rest are counted. */
const MAX_ID_PROBLEMS = 50;

/** The id a record carries under any case of `id` (as get returns it); two different values are refused. */
function idOf(record: unknown): { id: string } | { problem: string } {
  if (!isRecord(record)) {
    return { problem: 'must be an object with the record id under "id"' };
  }
  const values = new Set<unknown>();
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === 'id') values.add(value);
  const [value] = values;
  if (values.size === 0) return { problem: 'is required' };
  if (values.size > 1) return { problem: 'is given twice with different values; send one "id"' };
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    return { problem: `must be a string of 1 to ${MAX_ID_LENGTH} characters` };
  }
  return { id: value };
}

/** The ids of update records or delete items (ids or records): one 400 names every bad one. */
function checkIds(items: unknown[], idsAllowed: boolean): string[] {
  const ids: string[] = [];
  const problems: Array<{ path: string; message: string }> = [];
  items.forEach((item, index) => {
    if (idsAllowed && typeof item === 'string') {
      ids.push(item);
      return;
    }
    const found = idOf(item);
    if ('id' in found) ids.push(found.id);
    else if (problems.length < MAX_ID_PROBLEMS)
      problems.push({ path: `/data/${index}/id`, message: found.problem });
  });
  if (problems.length === 0) return ids;
  const [first] = problems;
  throw new ApiError(
    'invalid_body',
    `The request body is invalid: ${first?.path} ${first?.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}. Each record carries its id under "id" in any case ("Id", "ID"), as get returns it.`,
    { details: problems },
  );
}

/** A checked write of many records, which may run as a durable job. */
export type BatchWrite =
  | { operation: 'insert'; input: OperationInputs['insert'] }
  | { operation: 'update'; input: OperationInputs['update'] }
  | { operation: 'delete'; input: OperationInputs['delete'] };

export function sizeOf(write: BatchWrite): number {
  return write.operation === 'delete' ? write.input.ids.length : write.input.records.length;
}

/** Checks a batch write before anything is stored or sent, so a job never fails on its input. */
export async function checkBatchWrite(
  deps: OperationDeps,
  connection: Connection,
  write: {
    operation: BatchWrite['operation'];
    objectName?: string;
    items: unknown[];
    requested?: string | undefined;
  },
): Promise<BatchWrite> {
  const adapter = deps.registry.adapterFor(connection);
  handlerFor(adapter, write.operation);
  const via = forcedInterface(adapter, write.requested);
  if (write.operation === 'delete') {
    if (write.objectName !== undefined) ensureObjectName(adapter, write.objectName);
    ensureWithin('too_many_ids', write.items.length, adapter.profile.limits.deleteIds, 'delete');
    return {
      operation: 'delete',
      input: { objectName: write.objectName, ids: checkIds(write.items, true), via },
    };
  }
  const objectName = write.objectName ?? '';
  ensureObjectName(adapter, objectName);
  ensureWithin('too_many_records', write.items.length, adapter.profile.limits.writeRecords, write.operation);
  checkFieldNames(write.items);
  if (write.operation === 'update') checkIds(write.items, false);
  return { operation: write.operation, input: { objectName, records: write.items, via } };
}

/** Runs a checked batch write; every result carries `id`, null for a record that was not created. */
export async function runBatchWrite(
  deps: OperationDeps,
  connection: Connection,
  write: BatchWrite,
  job?: JobHook,
): Promise<WriteAnswer> {
  const answer = await runOperation(deps, connection, write.operation, write.input, { job });
  return {
    ...answer,
    data: answer.data.map((r, i) => ({
      id: r.id ?? askedId(write, i),
      success: r.success,
      errors: r.errors,
    })),
  };
}

/** The id a record was sent with: a failed result may not repeat it. */
function askedId(write: BatchWrite, index: number): string | null {
  if (write.operation === 'delete') return write.input.ids[index] ?? null;
  if (write.operation === 'insert') return null;
  const found = idOf(write.input.records[index]);
  return 'id' in found ? found.id : null;
}

export function upsertRecord(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  record: unknown,
  matchKey: string,
): Promise<UpsertOutcome> {
  const check = () => checkFieldNames([record]);
  return runOperation(deps, connection, 'upsert', { objectName, record, matchKey }, { check });
}
