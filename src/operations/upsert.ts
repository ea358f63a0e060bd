import { ApiError } from '../errors/index.ts';
import { closestName } from '../lib/closest.ts';
import type { UpsertOutcome } from '../providers/salesforce/facet.ts';
import { prepareRecords } from '../providers/salesforce/format.ts';
import type { Connection } from '../store/types.ts';
import { ensureObjectName, ensureOffered, notImplemented, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { unknownObject } from './describe.ts';
import { checkFieldNames, checkMatchValue } from './field-bounds.ts';
import { openSession } from './session.ts';

/**
 * Upsert one record on `match_key` (spec 4.1 rule 1). The match key must be a field of the
 * object and the record must carry a value for it (400 otherwise, before anything is sent).
 */
export async function upsertRecord(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  record: unknown,
  matchKey: string,
): Promise<UpsertOutcome> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'upsert');
  ensureObjectName(adapter, objectName);
  const { describe, salesforceData: data } = adapter;
  if (describe === undefined || data === undefined) throw notImplemented('upsert', adapter.provider);
  checkFieldNames([record]);
  return translatingCrmErrors(async () => {
    const session = openSession(deps, adapter, connection);
    const meta = await describe.describeObject(session, objectName);
    if (meta === null) throw unknownObject(objectName);
    const field = meta.fields.find((f) => f.name.toLowerCase() === matchKey.toLowerCase());
    if (field === undefined) {
      const hint = closestName(
        matchKey,
        meta.fields.map((f) => f.name),
      );
      throw new ApiError(
        'unknown_field',
        `${meta.name} has no field "${matchKey}"${hint === null ? '' : ` (did you mean "${hint}"?)`}; match_key must be Id or a field of ${meta.name}.`,
        { details: [{ path: '/match_key', field: matchKey, did_you_mean: hint }] },
      );
    }
    const [prepared] = prepareRecords(meta, [record]);
    const value = prepared?.[field.name];
    if (prepared === undefined || value === undefined || value === null || value === '') {
      throw new ApiError(
        'missing_match_value',
        `The record has no value for its match key ${field.name}; upsert needs it to find the record to update.`,
        { details: [{ path: `/data/0/${field.name}`, match_key: field.name }] },
      );
    }
    checkMatchValue(field.name, value);
    return data.upsert(session, deps.limiters.for(connection.id), meta, prepared, field.name);
  });
}
