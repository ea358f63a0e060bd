import type { SaveResult, UpsertOutcome } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { OperationInputs } from '../adapter.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { HubSpotApi, PropertyInfo } from './connection-state.ts';
import { checkedProperties, type ObjectRef, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { formatValue, OptionHints } from './values.ts';
import { describeHint, ID_KEYS, prepare, takeAssociations } from './write-prepare.ts';
import {
  type BatchAnswer,
  fail,
  failedCall,
  type HubSpotErrorEntry,
  type Prepared,
  recordErrors,
  UNREPORTED,
  written,
} from './write-results.ts';
import { createdSinceSend, existing, findByUnique, saveRecords } from './writes.ts';

/** One record: HubSpot's own upsert on a unique property, else a lookup then an insert or update. */
export async function hubspotUpsert(
  api: HubSpotApi,
  input: OperationInputs['upsert'],
): Promise<UpsertOutcome> {
  const object = await resolveObject(api, input.objectName);
  const { rest: record, associations } = takeAssociations(isRecord(input.record) ? input.record : {}, 0);
  const linked = (r: Record<string, unknown>) => (associations === undefined ? r : { ...r, associations });
  const keyName = Object.keys(record).find((k) => k.toLowerCase() === input.matchKey.toLowerCase());
  const value = keyName === undefined ? undefined : record[keyName];
  if (value === undefined || value === null || value === '') {
    throw new ApiError(
      'missing_match_value',
      `The record has no value for its match key "${input.matchKey}". Add it, or match on another property.`,
      { details: [{ path: `/data/0/${input.matchKey}`, message: 'required: the match key' }] },
    );
  }
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => k !== keyName));
  const save = async (mode: 'insert' | 'update', r: Record<string, unknown>) =>
    (await saveRecords(api, object, [r], mode))[0] as SaveResult;

  let matches: string[];
  let property: PropertyInfo | undefined;
  if (ID_KEYS.has(input.matchKey.toLowerCase())) {
    const id = String(value);
    const found = HUBSPOT_PROFILE.idPattern.test(id) && (await existing(api, object, [id])).has(id);
    matches = found ? [id] : [];
  } else {
    const used = Object.keys(record).map((k): [string, string] => [k, `/data/0/${k}`]);
    const byLower = await checkedProperties(api, object, used, describeHint(object));
    property = byLower.get(input.matchKey.toLowerCase()) as PropertyInfo;
    const formatted = formatValue(property, value, new OptionHints());
    if (!formatted.ok) return { action: 'insert', result: { success: false, errors: [formatted.error] } };
    const unique = property.hasUniqueValue || (object.typeId === '0-1' && property.name === 'email');
    // HubSpot's own upsert takes no associations: with them, look the record up first.
    if (unique && associations === undefined)
      return uniqueUpsert(api, object, property.name, formatted.value, rest);
    matches = await search(api, object, property.name, formatted.value);
  }
  const [id] = matches;
  if (id === undefined) {
    const inserted = linked(property === undefined ? rest : record);
    return { action: 'insert', result: await save('insert', inserted) };
  }
  if (matches.length === 1) {
    // HubSpot sets associations on create only: an upsert that would update refuses them unwritten.
    if (associations !== undefined) {
      const message = `The ${object.name} record ${id} exists and HubSpot sets associations only when it creates a record: nothing was written. Send the update without "associations" and link the records with POST /v1/object/associate/${object.name}.`;
      const error = fail('ASSOCIATIONS_ON_UPDATE', message, ['associations']);
      return { action: 'update', result: { id, success: false, errors: [error] } };
    }
    return { action: 'update', result: await save('update', { ...rest, id }) };
  }
  const name = property?.name ?? input.matchKey;
  const duplicate = fail(
    'DUPLICATE_MATCH',
    `More than one ${object.name} record has ${name} = this value; nothing was inserted or updated. Make the value unique or match on id.`,
    [name],
  );
  return { action: 'ambiguous', result: { success: false, errors: [duplicate] } };
}

/** HubSpot's own upsert on a unique property: atomic, and its `new` flag says whether it created. */
async function uniqueUpsert(
  api: HubSpotApi,
  object: ObjectRef,
  idProperty: string,
  value: string,
  rest: Record<string, unknown>,
): Promise<UpsertOutcome> {
  const { prepared, refused } = await prepare(api, object, [rest], 'insert');
  const refusal = refused.get(0);
  if (refusal !== undefined) return { action: 'insert', result: refusal };
  const p = prepared[0] as Prepared;
  // The record holding the value (undefined: none; null: the lookup failed), after a lost answer.
  const holder = () =>
    findByUnique(api, object, idProperty, [value]).then(
      (found) => [...found.values()][0],
      () => null,
    );
  const sentAt = api.clock.now();
  let response: OutboundResponse;
  try {
    response = await api.send({
      method: 'POST',
      path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/upsert`,
      body: { inputs: [{ id: value, idProperty, properties: p.properties, objectWriteTraceId: '0' }] },
      // Sending the same upsert again finds the record the first one wrote: no duplicate.
      idempotent: true,
      label: 'hubspot.objects.batch.upsert',
    });
  } catch (error) {
    const entry = failedCall(error, 'batch upsert');
    // Answer lost: a record created since the send was ours; none, nothing was written. An older
    // record or a failed lookup says nothing of an update: the outcome stays unknown.
    const record = entry.statusCode === 'CRM_PROXY_OUTCOME_UNKNOWN' ? await holder() : null;
    if (record != null && createdSinceSend(record, sentAt)) {
      return { action: 'insert', result: written(record.id) };
    }
    const notWritten = fail(
      'CRM_PROXY_NOT_WRITTEN',
      `The upsert got no answer, and HubSpot then held no record with this ${idProperty}: nothing was written. Send it again.`,
      [idProperty],
    );
    const errors = [record === undefined ? notWritten : entry];
    return { action: 'unique_property_upsert', result: { success: false, errors } };
  }
  if (response.status === 400 || response.status === 409) {
    const errors = recordErrors(parseJson<HubSpotErrorEntry>(response) ?? {});
    return { action: 'unique_property_upsert', result: { success: false, errors } };
  }
  if (response.status !== 200 && response.status !== 201 && response.status !== 207) {
    throw crmErrorFromResponse('hubspot', response, `batch upsert of ${object.name}`);
  }
  const body = parseJson<BatchAnswer>(response) ?? {};
  const r = body.results?.[0];
  if (r !== undefined && typeof r.id === 'string') {
    // A resend after a lost answer finds the record the lost attempt created: its creation says.
    const record = r.new === true || response.attempts === 1 ? null : await holder();
    const created = r.new === true || (record != null && createdSinceSend(record, sentAt));
    return { action: created ? 'insert' : 'update', result: written(r.id) };
  }
  const errors = (body.errors ?? []).flatMap(recordErrors);
  return {
    action: 'unique_property_upsert',
    result: { success: false, errors: errors.length > 0 ? errors : [UNREPORTED] },
  };
}

/** Ids of at most two records whose property equals the value (a JSON filter value, never spliced). */
async function search(
  api: HubSpotApi,
  object: ObjectRef,
  property: string,
  value: string,
): Promise<string[]> {
  const body = await api.json<{ results?: Array<{ id?: unknown }> }>({
    method: 'POST',
    path: `/crm/v3/objects/${encodeURIComponent(object.path)}/search`,
    body: {
      filterGroups: [{ filters: [{ propertyName: property, operator: 'EQ', value }] }],
      properties: ['hs_object_id'],
      limit: 2,
    },
    idempotent: true,
    kind: 'search',
    label: 'hubspot.objects.search',
    what: `searching ${object.name}`,
  });
  return (body?.results ?? []).flatMap((r) => (typeof r.id === 'string' ? [r.id] : []));
}
