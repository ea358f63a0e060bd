import { setTimeout as sleep } from 'node:timers/promises';
import { backoffMs } from '../lib/backoff.ts';
import { yieldToLoop } from '../lib/yield-to-loop.ts';
import type { CrmAdapter, CrmSession } from '../providers/adapter.ts';
import type {
  PreparedRecord,
  SalesforceDataFacet,
  SaveResult,
  WriteInterface,
} from '../providers/salesforce/facet.ts';
import { prepareRecords } from '../providers/salesforce/format.ts';
import type { Connection } from '../store/types.ts';
import { ensureObjectName, ensureOffered, notImplemented, tooMany, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { unknownObject } from './describe.ts';
import { checkFieldNames } from './field-bounds.ts';
import { openSession } from './session.ts';

export { upsertRecord } from './upsert.ts';

/** A write's answer and the Salesforce interface that carried it (`X-CRM-Proxy-Interface`). */
export interface WriteAnswer {
  data: SaveResult[];
  via: WriteInterface;
}

/** Rounds in which records failed with UNABLE_TO_LOCK_ROW are sent again (only those records). */
const LOCK_RETRIES = 2;

function salesforceData(adapter: CrmAdapter, operation: 'insert' | 'update' | 'delete' | 'upsert') {
  const data = adapter.salesforceData;
  if (data === undefined) throw notImplemented(operation, adapter.provider);
  return data;
}

export async function insertRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  records: unknown[],
  forced?: WriteInterface,
): Promise<WriteAnswer> {
  return save(deps, connection, 'insert', objectName, records, forced);
}

export async function updateRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  records: unknown[],
  forced?: WriteInterface,
): Promise<WriteAnswer> {
  return save(deps, connection, 'update', objectName, records, forced);
}

/**
 * Insert or update (spec 4.1 rule 3): one result per record, in order, each on its own. Field
 * names are mapped to the object's real names first (400 for unknown ones, before any write).
 */
async function save(
  deps: OperationDeps,
  connection: Connection,
  operation: 'insert' | 'update',
  objectName: string,
  records: unknown[],
  forced: WriteInterface | undefined,
): Promise<WriteAnswer> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, operation);
  ensureObjectName(adapter, objectName);
  const limit = adapter.capabilities.limits.writeRecords;
  if (records.length > limit) throw tooMany('too_many_records', records.length, limit, operation);
  checkFieldNames(records);
  const data = salesforceData(adapter, operation);
  const describe = adapter.describe;
  if (describe === undefined) throw notImplemented(operation, adapter.provider);
  return translatingCrmErrors(async () => {
    const session = openSession(deps, adapter, connection);
    const meta = await describe.describeObject(session, objectName);
    if (meta === null) throw unknownObject(objectName);
    // Validation and the describe lookup ran in this turn of the loop; preparing 10,000 records takes its own.
    await yieldToLoop();
    const prepared = prepareRecords(meta, records);
    // Records without a single field make a Bulk CSV without columns, which Bulk refuses as a
    // whole; Collections sends them and Salesforce answers each one (REQUIRED_FIELD_MISSING, …).
    const via = prepared.every(isEmpty) ? 'collections' : (forced ?? chooseInterface(data, prepared.length));
    const limiter = deps.limiters.for(connection.id);
    const results = await withLockRetries(prepared, via, data, (items, how) =>
      data.save(session, limiter, operation, meta.name, items, how),
    );
    return { data: results, via };
  });
}

export async function deleteRecords(
  deps: OperationDeps,
  connection: Connection,
  ids: string[],
  forced?: WriteInterface,
): Promise<WriteAnswer> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'delete');
  const limit = adapter.capabilities.limits.deleteIds;
  if (ids.length > limit) throw tooMany('too_many_ids', ids.length, limit, 'delete');
  const data = salesforceData(adapter, 'delete');
  return translatingCrmErrors(async () => {
    const session: CrmSession = openSession(deps, adapter, connection);
    const via = forced ?? chooseInterface(data, ids.length);
    const limiter = deps.limiters.for(connection.id);
    const results = await withLockRetries(ids, via, data, (items, how) =>
      data.remove(session, limiter, items, how),
    );
    return { data: results, via };
  });
}

const isEmpty = (record: PreparedRecord) => Object.keys(record).length === 0;

function chooseInterface(data: SalesforceDataFacet, count: number): WriteInterface {
  return count >= data.bulkThreshold ? 'bulk2' : 'collections';
}

const isLocked = (r: SaveResult) => !r.success && r.errors.some((e) => e.statusCode === 'UNABLE_TO_LOCK_ROW');

/**
 * Records that failed only because another transaction held a lock were not written, so sending
 * them again cannot write them twice: they go again (alone, after a backoff), up to LOCK_RETRIES
 * times, each round through the interface that suits their number.
 */
async function withLockRetries<T extends PreparedRecord | string>(
  items: T[],
  via: WriteInterface,
  data: SalesforceDataFacet,
  send: (items: T[], via: WriteInterface) => Promise<SaveResult[]>,
): Promise<SaveResult[]> {
  const results = await send(items, via);
  for (let round = 1; round <= LOCK_RETRIES; round++) {
    const locked = results.flatMap((r, i) => (isLocked(r) ? [i] : []));
    if (locked.length === 0) break;
    await sleep(backoffMs(round, { baseMs: 200, maxMs: 2_000 }));
    const again = await send(
      locked.map((i) => items[i] as T),
      chooseInterface(data, locked.length),
    );
    locked.forEach((i, k) => {
      const r = again[k];
      if (r !== undefined) results[i] = r;
    });
  }
  return results;
}
