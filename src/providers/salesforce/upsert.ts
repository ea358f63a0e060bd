import { ApiError } from '../../errors/index.ts';
import type { ConcurrencyLimiter } from '../../lib/limiter.ts';
import { parseJson } from '../client/types.ts';
import { unreachableAsCrmError } from '../errors.ts';
import type { CrmSession, ObjectDescribe } from './describe-types.ts';
import type {
  PreparedRecord,
  RecordError,
  SaveResult,
  SalesforceUpsertOutcome as UpsertOutcome,
} from './facet.ts';
import { toCollectionsRecord } from './format.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { type ReconcileDeps, reconcileByKey } from './reconcile.ts';
import {
  collectionsWrite,
  failedCallEntry,
  mayHaveApplied,
  normalizeResult,
  type Recovery,
} from './save-collections.ts';
import { soqlLiteral, soqlString } from './soql.ts';

type Queries = Pick<ReconcileDeps, 'query' | 'queryMore'>;

/**
 * Upsert of one record on `matchField`:
 * - `Id`: update when a record has that id, else create (without the id);
 * - a field flagged External ID: Salesforce's own upsert (`PATCH /sobjects/X/Field/value`), which
 *   is atomic and answers 300 (nothing written) when several records match;
 * - any other field: a lookup (`LIMIT 2`, the value escaped as a SOQL literal), then 0 matches
 *   create, 1 updates that record, 2 fail the record and write nothing. Between the lookup and the
 *   write another client may create a match; only an External ID field closes that window.
 */
export async function upsertRecord(
  session: CrmSession,
  limiter: ConcurrencyLimiter,
  apiVersion: string,
  queries: Queries,
  now: () => number,
  meta: ObjectDescribe,
  record: PreparedRecord,
  matchField: string,
): Promise<UpsertOutcome> {
  const { query } = queries;
  const field = meta.fields.find((f) => f.name === matchField);
  const value = record[matchField];
  const since = now();
  // A lost answer is looked up by the match field (its value is in the record that was sent).
  const lookup = (mode: 'insert' | 'upsert'): Recovery => {
    const deps = { session, objectName: meta.name, ...queries };
    const fieldTypes = new Map(meta.fields.map((f) => [f.name, String(f['type'] ?? '')]));
    return (records) => reconcileByKey({ ...deps, fieldTypes }, records, { field: matchField, since }, mode);
  };
  const save = async (operation: 'insert' | 'update', r: PreparedRecord): Promise<SaveResult> => {
    const recover = operation === 'insert' && matchField !== 'Id' ? lookup('insert') : undefined;
    const { results } = await collectionsWrite(
      session,
      limiter,
      apiVersion,
      operation,
      meta.name,
      [r],
      undefined,
      undefined,
      recover,
    );
    return results[0] ?? { success: false, errors: [] };
  };
  const { Id: _ignoredId, ...withoutId } = record;

  if (matchField === 'Id') {
    const id = String(value);
    const found = SALESFORCE_PROFILE.idPattern.test(id)
      ? await query(session, `SELECT Id FROM ${meta.name} WHERE Id = ${soqlString(id)} LIMIT 1`)
      : { records: [] };
    if (found.records.length === 1) {
      return { action: 'update', result: await save('update', { ...withoutId, Id: id }) };
    }
    return { action: 'insert', result: await save('insert', withoutId) };
  }

  if (field?.['externalId'] === true) {
    return {
      action: 'external_id_upsert',
      result: await externalIdUpsert(
        session,
        apiVersion,
        meta,
        matchField,
        value,
        withoutId,
        lookup('upsert'),
      ),
    };
  }

  const literal = soqlLiteral(value, String(field?.['type'] ?? 'string'));
  if (literal === null) {
    throw new ApiError(
      'invalid_body',
      `The value of ${matchField} cannot be matched as a ${String(field?.['type'])} value.`,
      { details: [{ path: `/data/0/${matchField}`, type: field?.['type'] ?? null }] },
    );
  }
  const found = await query(session, `SELECT Id FROM ${meta.name} WHERE ${matchField} = ${literal} LIMIT 2`);
  if (found.records.length === 0) return { action: 'insert', result: await save('insert', withoutId) };
  if (found.records.length === 1) {
    const id = String(found.records[0]?.['Id']);
    return { action: 'update', result: await save('update', { ...withoutId, Id: id }) };
  }
  return {
    action: 'ambiguous',
    result: { success: false, errors: [ambiguous(meta.name, matchField)] },
  };
}

/** Salesforce's own upsert on an External ID field: atomic; 300 when several records match. */
async function externalIdUpsert(
  session: CrmSession,
  apiVersion: string,
  meta: ObjectDescribe,
  matchField: string,
  value: unknown,
  withoutId: PreparedRecord,
  recover: Recovery,
): Promise<SaveResult> {
  const { [matchField]: _key, ...rest } = withoutId;
  const { attributes: _a, ...body } = toCollectionsRecord(meta.name, rest);
  const url = `${session.baseUrl}${SALESFORCE_PROFILE.dataPath(apiVersion)}/sobjects/${encodeURIComponent(meta.name)}/${encodeURIComponent(matchField)}/${encodeURIComponent(String(value))}`;
  let response: Awaited<ReturnType<CrmSession['send']>>;
  try {
    response = await unreachableAsCrmError('salesforce', 'upsert', () =>
      session.send({
        method: 'PATCH',
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        // Resending an upsert by external id finds the record the first one created: no duplicate.
        idempotent: true,
        label: 'salesforce.sobject.upsert',
      }),
    );
  } catch (error) {
    // Every attempt lost its answer: the record holding the value says what was written.
    const [found] = mayHaveApplied(error) ? await recover([{ ...withoutId, [matchField]: value }]) : [];
    return found ?? { success: false, errors: [failedCallEntry(error, 'upsert')] };
  }
  const answer = parseJson<unknown>(response);
  if (response.status === 300) return { success: false, errors: [ambiguous(meta.name, matchField)] };
  if (response.status === 200 || response.status === 201) {
    return normalizeResult(answer as SaveResult);
  }
  const errors: RecordError[] = Array.isArray(answer)
    ? (answer as Array<{ errorCode?: string; message?: string; fields?: string[] }>).map((e) => ({
        statusCode: String(e.errorCode ?? 'UNKNOWN_EXCEPTION'),
        message: String(e.message ?? ''),
        fields: Array.isArray(e.fields) ? e.fields : [],
      }))
    : [{ statusCode: `HTTP_${response.status}`, message: response.text.slice(0, 500), fields: [] }];
  return { success: false, errors };
}

function ambiguous(objectName: string, field: string): RecordError {
  return {
    statusCode: 'DUPLICATE_EXTERNAL_ID',
    message: `More than one ${objectName} record matches on ${field}; nothing was inserted or updated. Make the value unique or match on Id.`,
    fields: [field],
  };
}
