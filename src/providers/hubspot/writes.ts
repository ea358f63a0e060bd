import type { RecordError, SaveResult, UpsertOutcome, WriteAnswer } from '../../domain/operations.ts';
import { ApiError, type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import { LoopYielder } from '../../lib/yield-to-loop.ts';
import type { HandlerCall, JobHook } from '../adapter.ts';
import { OutboundNetworkError, type OutboundResponse, parseJson } from '../client/types.ts';
import { CrmError, crmErrorFromResponse } from '../errors.ts';
import { accountObject, writePipelines } from './account-objects.ts';
import type { PerConnectionState } from './connection-state.ts';
import {
  associationsOnUpdate,
  type CreateAssociation,
  splitAssociations,
  takeAssociations,
} from './create-associations.ts';
import { type ObjectRef, type PropertyInfo, propertyInfos, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { formatValue, OptionHints } from './values.ts';

/** HubSpot's batch endpoints take at most 100 inputs. */
const BATCH = HUBSPOT_PROFILE.batchWriteMaxInputs;

/** A record ready for HubSpot: its position in the request, its id (updates) and formatted values. */
interface Prepared {
  index: number;
  id?: string;
  properties: Record<string, string>;
  /** Inserts only: HubSpot's create-body `associations`, sent as they came. */
  associations?: CreateAssociation[];
}

interface BatchAnswer {
  results?: Array<{ id?: unknown; objectWriteTraceId?: unknown; new?: unknown }>;
  errors?: HubSpotErrorEntry[];
}

interface HubSpotErrorEntry {
  category?: string;
  message?: string;
  context?: Record<string, unknown>;
  errors?: Array<{ code?: string; message?: string; context?: Record<string, unknown> }>;
}

type Outcome = Map<number, SaveResult>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const fail = (statusCode: string, message: string, fields: string[] = []): RecordError => ({
  statusCode,
  message,
  fields,
});

/** A record's result when HubSpot's answer named it nowhere. */
const UNREPORTED = fail(
  'CRM_PROXY_NO_RESULT',
  "HubSpot's answer did not report on this record. Check it before sending it again.",
);

/** HubSpot's error entry as per-record errors: one per property error it lists, else its category. */
function recordErrors(entry: HubSpotErrorEntry): RecordError[] {
  const inner = (entry.errors ?? []).filter((e) => typeof e.message === 'string');
  if (inner.length > 0) {
    return inner.map((e) => {
      const names = e.context?.['propertyName'];
      return fail(
        String(e.code ?? entry.category ?? 'ERROR'),
        String(e.message),
        Array.isArray(names) ? names.map(String) : [],
      );
    });
  }
  return [fail(String(entry.category ?? 'ERROR'), String(entry.message ?? 'HubSpot refused this record.'))];
}

/** Strings of a `context` key (`objectWriteTraceId`, `ids`). */
function contextList(entry: HubSpotErrorEntry, key: string): string[] {
  const v = entry.context?.[key];
  return Array.isArray(v) ? v.map(String) : [];
}

/**
 * A batch answer mapped back to request positions. Inputs carry their position as
 * `objectWriteTraceId`; results and failed inputs are found by it (HubSpot answers in no particular
 * order), failed updates HubSpot names only by id (`OBJECT_NOT_FOUND` with `context.ids`) by id.
 */
function mapBatchAnswer(batch: Prepared[], body: BatchAnswer): Outcome {
  const byTrace = new Map(batch.map((p) => [String(p.index), p]));
  const byId = new Map(batch.flatMap((p) => (p.id === undefined ? [] : [[p.id, p] as const])));
  const out: Outcome = new Map();
  for (const r of body.results ?? []) {
    const input =
      (typeof r.objectWriteTraceId === 'string' ? byTrace.get(r.objectWriteTraceId) : undefined) ??
      byId.get(String(r.id));
    if (input === undefined || typeof r.id !== 'string') continue;
    out.set(input.index, { id: r.id, success: true, errors: [] });
  }
  for (const entry of body.errors ?? []) {
    const named = [
      ...contextList(entry, 'objectWriteTraceId').map((t) => byTrace.get(t)),
      ...contextList(entry, 'ids').map((id) => byId.get(id)),
    ];
    for (const input of named) {
      if (input === undefined || out.get(input.index)?.success === true) continue;
      const previous = out.get(input.index)?.errors ?? [];
      out.set(input.index, {
        ...(input.id === undefined ? {} : { id: input.id }),
        success: false,
        errors: [...previous, ...recordErrors(entry)],
      });
    }
  }
  return out;
}

/** A whole-call refusal that names a record's values (nothing was written): worth splitting the batch. */
function namesRecordValues(response: OutboundResponse): boolean {
  if (response.status === 409) return true;
  if (response.status !== 400) return false;
  const body = parseJson<HubSpotErrorEntry>(response);
  return (
    (body?.errors ?? []).some((e) => Array.isArray(e.context?.['propertyName'])) ||
    String(body?.message ?? '').startsWith('Property values were not valid') ||
    // A bad association (unknown type, missing target) refuses the whole create as well.
    /association/i.test(String(body?.message ?? ''))
  );
}

/** The entry each record of a call that failed as a whole gets. */
function failedCall(error: unknown, what: string): RecordError {
  if (error instanceof ApiError && error.code === 'crm_rate_limited') {
    return fail('CRM_RATE_LIMITED', `${error.message} Nothing was written for this record; send it again.`);
  }
  if (error instanceof CrmError && error.kind === 'unreachable') {
    const notSent = error.cause instanceof OutboundNetworkError && error.cause.kind === 'connect_failed';
    return notSent
      ? fail(
          'CRM_PROXY_NOT_SENT',
          `The ${what} call could not reach HubSpot (${error.message}); nothing was written. Send this record again.`,
        )
      : fail(
          'CRM_PROXY_OUTCOME_UNKNOWN',
          `The ${what} call to HubSpot got no answer (${error.message}); it was not resent, because HubSpot may have applied it. Check the record before sending it again.`,
        );
  }
  if (error instanceof CrmError) {
    const body = isRecord(error.crmBody) ? (error.crmBody as HubSpotErrorEntry) : undefined;
    return fail(
      String(body?.category ?? `HTTP_${error.status ?? 'ERROR'}`),
      `The ${what} call failed with status ${error.status ?? '?'}: ${String(body?.message ?? error.message)}. Nothing was resent.`,
    );
  }
  throw error;
}

/**
 * A batch of a durable job, journaled: `sending` before the call, its results after. A job resumed
 * after a crash reuses answered batches; a batch that was being sent may have reached HubSpot:
 * updates are sent again (same values), creates are not (HubSpot has no way to find what a lost
 * create made), and their records are answered `CRM_PROXY_OUTCOME_UNKNOWN`.
 */
async function journaled<K extends string | number>(
  job: JobHook | undefined,
  key: string,
  keys: K[],
  resendable: boolean,
  send: () => Promise<Map<K, SaveResult>>,
): Promise<Map<K, SaveResult>> {
  if (job === undefined) return send();
  const entry = (await job.journal.get(key)) as { results?: [K, SaveResult][] } | undefined;
  if (entry?.results !== undefined) return new Map(entry.results);
  if (entry !== undefined && !resendable) {
    const unknown = fail(
      'CRM_PROXY_OUTCOME_UNKNOWN',
      'The service stopped while this batch was being sent to HubSpot, so HubSpot may or may not have created the record; it was not sent again. Search HubSpot for it before sending it again.',
    );
    return new Map(keys.map((k) => [k, { success: false, errors: [unknown] }]));
  }
  if (job.signal.aborted) {
    const cancelled = fail('CRM_PROXY_CANCELLED', 'The job was cancelled before this record was sent.');
    return new Map(keys.map((k) => [k, { success: false, errors: [cancelled] }]));
  }
  await job.journal.set(key, { state: 'sending' });
  const results = await send();
  await job.journal.set(key, { results: [...results] });
  return results;
}

/** Counts of a job's records as batches finish, reported to the job when there is one. */
function progressOf(job: JobHook | undefined) {
  const counts = { processed: 0, succeeded: 0, failed: 0 };
  return (results: Iterable<SaveResult>) => {
    if (job === undefined) return;
    for (const r of results) {
      counts.processed++;
      if (r.success) counts.succeeded++;
      else counts.failed++;
    }
    job.progress({ ...counts });
  };
}

/** Splits into batches of at most 100 such that no id appears twice in one round (HubSpot refuses that). */
function rounds(prepared: Prepared[]): Prepared[][][] {
  const byRound: Prepared[][] = [];
  const seen = new Map<string, number>();
  for (const p of prepared) {
    const round = p.id === undefined ? 0 : (seen.get(p.id) ?? 0);
    if (p.id !== undefined) seen.set(p.id, round + 1);
    const list = byRound[round] ?? [];
    list.push(p);
    byRound[round] = list;
  }
  return byRound.map((list) => {
    const batches: Prepared[][] = [];
    for (let i = 0; i < list.length; i += BATCH) batches.push(list.slice(i, i + BATCH));
    return batches;
  });
}

/** Property lookup by name, case-insensitive, refreshed once when a name is unknown. */
async function propertiesOf(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  names: Iterable<string>,
): Promise<Map<string, PropertyInfo>> {
  const index = (list: PropertyInfo[]) => new Map(list.map((p) => [p.name.toLowerCase(), p]));
  let byLower = index(await propertyInfos(hs, call.session, object));
  const wanted = [...names];
  if (wanted.some((n) => !byLower.has(n.toLowerCase()))) {
    byLower = index(await propertyInfos(hs, call.session, object, { refresh: true }));
  }
  return byLower;
}

/** 400 naming every property the type lacks, each with the closest real one. */
function unknownProperties(
  object: ObjectRef,
  byLower: Map<string, PropertyInfo>,
  names: Map<string, string>,
): void {
  const unknown: UnknownField[] = [];
  const hint = hinter([...byLower.values()].map((p) => p.name));
  for (const [name, path] of names) {
    if (!byLower.has(name.toLowerCase())) unknown.push({ path, field: name, did_you_mean: hint(name) });
  }
  if (unknown.length > 0) {
    throw unknownFields(
      `HubSpot ${object.name} have no property`,
      unknown,
      `. POST /v1/describe/${object.name} lists its properties.`,
    );
  }
}

const ID_KEYS = new Set(['id', 'hs_object_id']);

/** Keys of HubSpot's record shape (as get answers it) around `properties`; none is a property. */
const RECORD_SHAPE_KEYS = new Set([
  'createdat',
  'updatedat',
  'archived',
  'archivedat',
  'propertieswithhistory',
  'associations',
]);

/**
 * A record as get returned it (`{"id", "properties": {…}, "createdAt", …}`) as the flat record an
 * update takes: its id and its properties. Any other record is returned as is.
 */
function unwrapRecordShape(record: unknown): unknown {
  if (!isRecord(record) || !isRecord(record['properties'])) return record;
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (ID_KEYS.has(key.toLowerCase())) flat[key] = value;
    else if (key !== 'properties' && !RECORD_SHAPE_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  for (const [key, value] of Object.entries(record['properties'])) {
    if (!ID_KEYS.has(key.toLowerCase())) flat[key] = value;
  }
  return flat;
}

/** Each property name the records use, with the path of its first use; insert refuses ids. */
function propertyNames(records: unknown[], mode: 'insert' | 'update'): Map<string, string> {
  const names = new Map<string, string>();
  records.forEach((r, i) => {
    if (!isRecord(r)) return;
    for (const k of Object.keys(r)) {
      if (ID_KEYS.has(k.toLowerCase())) {
        if (mode === 'insert') {
          throw new ApiError(
            'invalid_body',
            `insert creates records: record ${i} has "${k}". Leave ids out, or use update (or upsert with match_key "id").`,
            { details: [{ path: `/data/${i}/${k}`, message: 'not allowed on insert' }] },
          );
        }
        continue;
      }
      if (!names.has(k)) names.set(k, `/data/${i}/${k}`);
    }
  });
  return names;
}

/**
 * Checks and formats the records of an insert or update: unknown property names fail the request
 * (400 with hints, like Salesforce's unknown fields); a value HubSpot would refuse fails its record
 * only. Updates need an `id` of digits.
 */
async function prepare(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  records: unknown[],
  mode: 'insert' | 'update',
): Promise<{ prepared: Prepared[]; refused: Outcome }> {
  // Records sent back as get returned them carry read-only values (createdate, …): those are
  // dropped rather than refused, since the client did not choose to send them.
  const fromGet = new Set<number>();
  if (mode === 'update') {
    records = records.map((r, i) => {
      const flat = unwrapRecordShape(r);
      if (flat !== r) fromGet.add(i);
      return flat;
    });
  }
  const split = splitAssociations(records, mode);
  records = split.records;
  const names = propertyNames(records, mode);
  const byLower = await propertiesOf(hs, call, object, names.keys());
  unknownProperties(object, byLower, names);

  const hints = new OptionHints();
  const prepared: Prepared[] = [];
  const refused: Outcome = new Map();
  // 10 000 records of formatting is more than one slice of the event loop: yield between slices.
  const yielder = new LoopYielder();
  for (const [index, r] of records.entries()) {
    if (yielder.due) await yielder.yielded();
    const record = isRecord(r) ? r : {};
    let id: string | undefined;
    const errors: RecordError[] = [];
    const properties: Record<string, string> = {};
    for (const [key, raw] of Object.entries(record)) {
      if (ID_KEYS.has(key.toLowerCase())) {
        id = String(raw);
        continue;
      }
      const property = byLower.get(key.toLowerCase()) as PropertyInfo;
      if (property.readOnlyValue && fromGet.has(index)) continue;
      const formatted = formatValue(property, raw, hints);
      if (formatted.ok) properties[property.name] = formatted.value;
      else errors.push(formatted.error);
    }
    if (mode === 'update' && (id === undefined || !HUBSPOT_PROFILE.idPattern.test(id))) {
      errors.unshift(
        fail('MALFORMED_ID', `"${String(id).slice(0, 50)}" is not a HubSpot record id (decimal digits).`, [
          'id',
        ]),
      );
    }
    if (errors.length > 0) {
      refused.set(index, {
        ...(mode === 'update' && id !== undefined ? { id } : {}),
        success: false,
        errors,
      });
    } else {
      const associations = split.links.get(index);
      prepared.push({
        index,
        ...(mode === 'update' ? { id: id as string } : {}),
        properties,
        ...(associations && { associations }),
      });
    }
  }
  return { prepared, refused };
}

/**
 * HubSpot writes: insert, update, delete (archive) and upsert, in batches of 100 run in parallel
 * under the connection's pacer and concurrency cap. Every result lands at its record's position.
 */
export function hubspotWrites(hs: PerConnectionState) {
  /**
   * One create or update batch. A refusal of the whole call that names record values (a 409
   * duplicate, a 400 with property errors) wrote nothing, so the batch is split and sent again until
   * the refused records stand alone; any other failure fails the batch's records.
   */
  async function writeBatch(
    call: HandlerCall,
    object: ObjectRef,
    kind: 'create' | 'update',
    batch: Prepared[],
  ): Promise<Outcome> {
    const what = `batch ${kind}`;
    let response: OutboundResponse;
    try {
      response = await call.limiter.run(() =>
        hs.call(call.session, {
          method: 'POST',
          path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/${kind}`,
          body: {
            inputs: batch.map((p) => ({
              ...(p.id === undefined ? {} : { id: p.id }),
              properties: p.properties,
              ...(p.associations === undefined ? {} : { associations: p.associations }),
              objectWriteTraceId: String(p.index),
            })),
          },
          idempotent: false,
          label: `hubspot.objects.batch.${kind}`,
        }),
      );
      if (response.status !== 200 && response.status !== 201 && response.status !== 207) {
        if (namesRecordValues(response) && batch.length > 1) {
          const half = Math.ceil(batch.length / 2);
          const [a, b] = await Promise.all([
            writeBatch(call, object, kind, batch.slice(0, half)),
            writeBatch(call, object, kind, batch.slice(half)),
          ]);
          return new Map([...a, ...b]);
        }
        if (namesRecordValues(response)) {
          const body = parseJson<HubSpotErrorEntry>(response) ?? {};
          const p = batch[0] as Prepared;
          return new Map([
            [
              p.index,
              { ...(p.id === undefined ? {} : { id: p.id }), success: false, errors: recordErrors(body) },
            ],
          ]);
        }
        throw crmErrorFromResponse('hubspot', response, `${what} of ${object.name}`);
      }
    } catch (error) {
      const entry = failedCall(error, what);
      return new Map(
        batch.map((p) => [
          p.index,
          { ...(p.id === undefined ? {} : { id: p.id }), success: false, errors: [entry] },
        ]),
      );
    }
    return mapBatchAnswer(batch, parseJson<BatchAnswer>(response) ?? {});
  }

  /** Rounds one after the other (a repeated id's later write wins), batches of a round in parallel. */
  async function writeAll(
    call: HandlerCall,
    object: ObjectRef,
    kind: 'create' | 'update',
    prepared: Prepared[],
  ) {
    const out: Outcome = new Map();
    const report = progressOf(call.job);
    for (const [n, round] of rounds(prepared).entries()) {
      const done = await Promise.all(
        round.map(async (batch) => {
          const indexes = batch.map((p) => p.index);
          const key = `hubspot.${kind}.${n}.${indexes[0]}.${indexes.length}`;
          const m = await journaled(call.job, key, indexes, kind === 'update', () =>
            writeBatch(call, object, kind, batch),
          );
          report(m.values());
          return m;
        }),
      );
      for (const m of done) for (const [i, r] of m) out.set(i, r);
    }
    return out;
  }

  function inOrder(count: number, outcome: Outcome, prepared: Prepared[]): SaveResult[] {
    const ids = new Map(prepared.map((p) => [p.index, p.id]));
    return Array.from({ length: count }, (_, i) => {
      const r = outcome.get(i);
      if (r !== undefined) return r;
      const id = ids.get(i);
      return { ...(id === undefined ? {} : { id }), success: false, errors: [UNREPORTED] };
    });
  }

  async function save(
    call: HandlerCall,
    objectName: string,
    records: unknown[],
    mode: 'insert' | 'update',
  ): Promise<WriteAnswer> {
    const account = accountObject(objectName);
    if (account !== undefined) return writePipelines(hs, call, account, records, mode);
    const object = await resolveObject(hs, call.session, objectName);
    const { prepared, refused } = await prepare(hs, call, object, records, mode);
    const written = await writeAll(call, object, mode === 'insert' ? 'create' : 'update', prepared);
    return { data: inOrder(records.length, new Map([...refused, ...written]), prepared) };
  }

  /** Which of these ids (at most 100) are live records: one batch/read. */
  async function existing(call: HandlerCall, object: ObjectRef, ids: string[]): Promise<Set<string>> {
    const response = await call.limiter.run(() =>
      hs.call(call.session, {
        method: 'POST',
        path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/read?archived=false`,
        body: { properties: ['hs_object_id'], propertiesWithHistory: [], inputs: ids.map((id) => ({ id })) },
        idempotent: true,
        label: 'hubspot.objects.batch.read',
      }),
    );
    if (response.status !== 200 && response.status !== 207) {
      throw crmErrorFromResponse('hubspot', response, `reading ${object.name}`);
    }
    const body = parseJson<BatchAnswer>(response) ?? {};
    return new Set((body.results ?? []).flatMap((r) => (typeof r.id === 'string' ? [r.id] : [])));
  }

  /**
   * One archive batch. HubSpot's batch archive answers 204 whether or not an id exists, so the
   * batch's ids are read first: ids that are not live records fail as not found instead of
   * passing for deleted.
   */
  async function archiveBatch(
    call: HandlerCall,
    object: ObjectRef,
    ids: string[],
  ): Promise<Map<string, SaveResult>> {
    const out = new Map<string, SaveResult>();
    try {
      const live = await existing(call, object, ids);
      for (const id of ids) {
        if (!live.has(id)) {
          out.set(id, {
            id,
            success: false,
            errors: [
              fail(
                'OBJECT_NOT_FOUND',
                `HubSpot has no live ${object.name} record with id ${id} (never existed, or already deleted).`,
              ),
            ],
          });
        }
      }
      const send = ids.filter((id) => live.has(id));
      if (send.length === 0) return out;
      const response = await call.limiter.run(() =>
        hs.call(call.session, {
          method: 'POST',
          path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/archive`,
          body: { inputs: send.map((id) => ({ id })) },
          // Archiving twice archives once.
          idempotent: true,
          label: 'hubspot.objects.batch.archive',
        }),
      );
      if (response.status !== 204 && response.status !== 200) {
        throw crmErrorFromResponse('hubspot', response, `batch archive of ${object.name}`);
      }
      for (const id of send) out.set(id, { id, success: true, errors: [] });
    } catch (error) {
      const entry = failedCall(error, 'batch archive');
      for (const id of ids) if (!out.has(id)) out.set(id, { id, success: false, errors: [entry] });
    }
    return out;
  }

  return {
    insert: (call: HandlerCall, input: { objectName: string; records: unknown[] }) =>
      save(call, input.objectName, input.records, 'insert'),
    update: (call: HandlerCall, input: { objectName: string; records: unknown[] }) =>
      save(call, input.objectName, input.records, 'update'),

    async delete(
      call: HandlerCall,
      input: { objectName: string | undefined; ids: string[] },
    ): Promise<WriteAnswer> {
      if (input.objectName === undefined) {
        throw new ApiError(
          'invalid_body',
          'HubSpot record ids do not say which object type they belong to: use POST /v1/object/delete/{object_name} (for example /v1/object/delete/contacts).',
          { details: [{ path: '/object_name', message: 'required for HubSpot' }] },
        );
      }
      const object = await resolveObject(hs, call.session, input.objectName);
      const valid = [...new Set(input.ids.filter((id) => HUBSPOT_PROFILE.idPattern.test(id)))];
      const batches: string[][] = [];
      for (let i = 0; i < valid.length; i += BATCH) batches.push(valid.slice(i, i + BATCH));
      const results = new Map<string, SaveResult>();
      const report = progressOf(call.job);
      const archived = batches.map(async (b, k) => {
        // Archiving again is harmless; ids an interrupted call archived then answer not found.
        const m = await journaled(call.job, `hubspot.archive.${k}`, b, true, () =>
          archiveBatch(call, object, b),
        );
        report(m.values());
        return m;
      });
      for (const m of await Promise.all(archived)) {
        for (const [id, r] of m) results.set(id, r);
      }
      return {
        data: input.ids.map(
          (id) =>
            results.get(id) ?? {
              id,
              success: false,
              errors: [
                fail('MALFORMED_ID', `"${id.slice(0, 50)}" is not a HubSpot record id (decimal digits).`),
              ],
            },
        ),
      };
    },

    async upsert(
      call: HandlerCall,
      input: { objectName: string; record: unknown; matchKey: string },
    ): Promise<UpsertOutcome> {
      const object = await resolveObject(hs, call.session, input.objectName);
      const taken = takeAssociations(isRecord(input.record) ? input.record : {}, 0);
      const { associations } = taken;
      const record = taken.rest;
      // HubSpot sets associations on create only: an upsert that would update refuses them unwritten.
      const linked = (r: Record<string, unknown>) =>
        associations === undefined ? r : { ...r, associations };
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

      if (ID_KEYS.has(input.matchKey.toLowerCase())) {
        const id = String(value);
        const found = HUBSPOT_PROFILE.idPattern.test(id)
          ? (await existing(call, object, [id])).has(id)
          : false;
        if (found && associations !== undefined) return associationsOnUpdate(object.name, id);
        return found
          ? { action: 'update', result: await saveOne(call, object, 'update', { ...rest, id }) }
          : { action: 'insert', result: await saveOne(call, object, 'insert', linked(rest)) };
      }

      const byLower = await propertiesOf(hs, call, object, [input.matchKey, ...Object.keys(rest)]);
      unknownProperties(
        object,
        byLower,
        new Map(Object.keys(record).map((k) => [k, `/data/0/${k}`] as const)),
      );
      const property = byLower.get(input.matchKey.toLowerCase()) as PropertyInfo;
      const formatted = formatValue(property, value, new OptionHints());
      if (!formatted.ok) return { action: 'insert', result: { success: false, errors: [formatted.error] } };
      const unique = property.hasUniqueValue || (object.typeId === '0-1' && property.name === 'email');
      // HubSpot's own upsert takes no associations: with them, look the record up first.
      if (unique && associations === undefined)
        return uniqueUpsert(call, object, property.name, formatted.value, rest);

      const matches = await search(call, object, property.name, formatted.value);
      if (matches.length === 0)
        return { action: 'insert', result: await saveOne(call, object, 'insert', linked(record)) };
      if (matches.length === 1 && associations !== undefined)
        return associationsOnUpdate(object.name, matches[0] as string);
      if (matches.length === 1) {
        return {
          action: 'update',
          result: await saveOne(call, object, 'update', { ...rest, id: matches[0] }),
        };
      }
      return {
        action: 'ambiguous',
        result: {
          success: false,
          errors: [
            fail(
              'DUPLICATE_MATCH',
              `More than one ${object.name} record has ${property.name} = this value; nothing was inserted or updated. Make the value unique or match on id.`,
              [property.name],
            ),
          ],
        },
      };
    },
  };

  async function saveOne(
    call: HandlerCall,
    object: ObjectRef,
    mode: 'insert' | 'update',
    record: Record<string, unknown>,
  ): Promise<SaveResult> {
    const { prepared, refused } = await prepare(hs, call, object, [record], mode);
    const written = await writeAll(call, object, mode === 'insert' ? 'create' : 'update', prepared);
    return inOrder(1, new Map([...refused, ...written]), prepared)[0] as SaveResult;
  }

  /**
   * HubSpot's own upsert on a unique property (`idProperty`): atomic, and its `new` flag says
   * whether it created or updated.
   */
  async function uniqueUpsert(
    call: HandlerCall,
    object: ObjectRef,
    idProperty: string,
    value: string,
    rest: Record<string, unknown>,
  ): Promise<UpsertOutcome> {
    const { prepared, refused } = await prepare(hs, call, object, [rest], 'insert');
    const refusal = refused.get(0);
    if (refusal !== undefined) return { action: 'insert', result: refusal };
    const p = prepared[0] as Prepared;
    let response: OutboundResponse;
    try {
      response = await call.limiter.run(() =>
        hs.call(call.session, {
          method: 'POST',
          path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/upsert`,
          body: { inputs: [{ id: value, idProperty, properties: p.properties, objectWriteTraceId: '0' }] },
          // Sending the same upsert again finds the record the first one wrote: no duplicate.
          idempotent: true,
          label: 'hubspot.objects.batch.upsert',
        }),
      );
    } catch (error) {
      return {
        action: 'unique_property_upsert',
        result: { success: false, errors: [failedCall(error, 'batch upsert')] },
      };
    }
    if (response.status === 200 || response.status === 201 || response.status === 207) {
      const body = parseJson<BatchAnswer>(response) ?? {};
      const r = body.results?.[0];
      if (r !== undefined && typeof r.id === 'string') {
        return {
          action: r.new === true ? 'insert' : 'update',
          result: { id: r.id, success: true, errors: [] },
        };
      }
      const errors = (body.errors ?? []).flatMap(recordErrors);
      return {
        action: 'unique_property_upsert',
        result: { success: false, errors: errors.length > 0 ? errors : [UNREPORTED] },
      };
    }
    if (response.status === 400 || response.status === 409) {
      const body = parseJson<HubSpotErrorEntry>(response) ?? {};
      return { action: 'unique_property_upsert', result: { success: false, errors: recordErrors(body) } };
    }
    throw crmErrorFromResponse('hubspot', response, `batch upsert of ${object.name}`);
  }

  /**
   * Ids of at most two records whose property equals the value, through CRM search (its own
   * 5-per-second pacing). The value travels as a JSON string in the filter, never spliced into text.
   */
  async function search(
    call: HandlerCall,
    object: ObjectRef,
    property: string,
    value: string,
  ): Promise<string[]> {
    const response = await call.limiter.run(() =>
      hs.call(call.session, {
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
      }),
    );
    if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, `searching ${object.name}`);
    const body = parseJson<{ results?: Array<{ id?: unknown }> }>(response) ?? {};
    return (body.results ?? []).flatMap((r) => (typeof r.id === 'string' ? [r.id] : []));
  }
}
