import type { RecordError, SaveResult } from '../../domain/operations.ts';
import { ApiError, unknownFields } from '../../errors/index.ts';
import { closestName } from '../../lib/closest.ts';
import { parseJson } from '../client/types.ts';
import { mayHaveApplied } from '../errors.ts';
import { viaCollections } from './collections.ts';
import { fieldTypesOf, knownObject, type ObjectDescribe } from './describe.ts';
import { type PreparedRecord, prepareRecords, toCollectionsRecord } from './format.ts';
import {
  failedCallEntry,
  failure,
  normalizeError,
  normalizeResult,
  type Org,
  type OrgHandler,
  send,
} from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { query, soqlLiteral } from './query.ts';
import { reconcileByKey } from './reconcile.ts';

/** Salesforce's Text and External ID fields hold 255 characters: a longer value matches nothing. */
const MAX_MATCH_VALUE_LENGTH = 255;

/**
 * Upsert one record on `match_key`, a field the record holds a value for (else 400, unsent). An
 * External ID field uses Salesforce's own atomic upsert; `Id` or any other field a `LIMIT 2`
 * lookup: none creates, one updates, two write nothing. Only External ID closes the race between
 * the lookup and the write.
 */
export const salesforceUpsert: OrgHandler<'upsert'> = async (org, input) => {
  const meta = await knownObject(org, input.objectName);
  const { matchKey } = input;
  const field = meta.fields.find((f) => f.name.toLowerCase() === matchKey.toLowerCase());
  if (field === undefined) {
    const hint = closestName(
      matchKey,
      meta.fields.map((f) => f.name),
    );
    throw unknownFields(
      `${meta.name} has no field`,
      [{ path: '/match_key', field: matchKey, did_you_mean: hint }],
      `; match_key must be Id or a field of ${meta.name}.`,
    );
  }
  const matchField = field.name;
  const [record] = prepareRecords(meta, [input.record], 'upsert');
  const value = record?.[matchField];
  if (record === undefined || value === undefined || value === null || value === '') {
    throw new ApiError(
      'missing_match_value',
      `The record has no value for its match key ${matchField}; upsert needs it to find the record to update.`,
      { details: [{ path: `/data/0/${matchField}`, match_key: matchField }] },
    );
  }
  if (typeof value === 'string' && value.length > MAX_MATCH_VALUE_LENGTH) {
    throw new ApiError(
      'invalid_value',
      `The match value of ${matchField} is ${value.length} characters long; a match key holds at most ${MAX_MATCH_VALUE_LENGTH} characters, so no record can match it.`,
      { details: [{ path: `/data/0/${matchField}`, length: value.length, limit: MAX_MATCH_VALUE_LENGTH }] },
    );
  }
  const type = String(field['type'] ?? '');
  const { Id: _ignoredId, ...withoutId } = record;
  if (matchField !== 'Id' && field['externalId'] === true) {
    return { action: 'external_id_upsert', result: await externalIdUpsert(org, meta, matchField, withoutId) };
  }
  const save = async (operation: 'insert' | 'update', r: PreparedRecord): Promise<SaveResult> => {
    // A lost answer is looked up by the match field (its value is in the record that was sent).
    const lookup = operation === 'insert' && matchField !== 'Id' ? { name: matchField, type } : undefined;
    const [result] = await viaCollections(org, operation, meta.name, [r], undefined, lookup).catch(
      (error: unknown) => [{ success: false, errors: [failedCallEntry(error, operation)] }],
    );
    return result ?? { success: false, errors: [] };
  };
  // Something that is not an id matches no record.
  const matchable = matchField !== 'Id' || SALESFORCE_PROFILE.idPattern.test(String(value));
  const literal = matchable ? soqlLiteral(value, type || 'string') : undefined;
  if (literal === null) {
    throw new ApiError(
      'invalid_body',
      `The value of ${matchField} cannot be matched as a ${String(field['type'])} value.`,
      { details: [{ path: `/data/0/${matchField}`, type: field['type'] ?? null }] },
    );
  }
  const found =
    literal === undefined
      ? []
      : (await query(org, `SELECT Id FROM ${meta.name} WHERE ${matchField} = ${literal} LIMIT 2`)).records;
  if (found.length === 0) return { action: 'insert', result: await save('insert', withoutId) };
  if (found.length === 1) {
    const update = { ...withoutId, Id: String(matchField === 'Id' ? value : found[0]?.['Id']) };
    return { action: 'update', result: await save('update', update) };
  }
  return { action: 'ambiguous', result: ambiguous(meta.name, matchField) };
};

/** Salesforce's own upsert on an External ID field: atomic; 300 when several records match. */
async function externalIdUpsert(
  org: Org,
  meta: ObjectDescribe,
  matchField: string,
  withoutId: PreparedRecord,
): Promise<SaveResult> {
  const since = org.clock.now();
  const { [matchField]: value, ...rest } = withoutId;
  const { attributes: _a, ...body } = toCollectionsRecord(meta.name, rest);
  const url = `${org.api}/sobjects/${encodeURIComponent(meta.name)}/${encodeURIComponent(matchField)}/${encodeURIComponent(String(value))}`;
  let response: Awaited<ReturnType<typeof send>>;
  try {
    response = await send(org, 'upsert', 'sobject.upsert', {
      method: 'PATCH',
      url,
      json: body,
      // Resending an upsert by external id finds the record the first one created: no duplicate.
      idempotent: true,
    });
  } catch (error) {
    // Every attempt lost its answer: the record holding the value says what was written.
    const types = fieldTypesOf(meta);
    const key = { name: matchField, type: types.get(matchField) ?? '', since };
    const [found] = mayHaveApplied(error)
      ? await reconcileByKey(org, meta.name, [withoutId], key, types)
      : [];
    return found ?? { success: false, errors: [failedCallEntry(error, 'upsert')] };
  }
  const answer = parseJson<unknown>(response);
  if (response.status === 300) return ambiguous(meta.name, matchField);
  if (response.status === 200 || response.status === 201) return normalizeResult(answer as SaveResult);
  const errors: RecordError[] = Array.isArray(answer)
    ? answer.map(normalizeError)
    : [{ statusCode: `HTTP_${response.status}`, message: response.text.slice(0, 500), fields: [] }];
  return { success: false, errors };
}

const ambiguous = (objectName: string, field: string): SaveResult =>
  failure(
    'DUPLICATE_EXTERNAL_ID',
    `More than one ${objectName} record matches on ${field}; nothing was inserted or updated. Make the value unique or match on Id.`,
    [field],
  );
