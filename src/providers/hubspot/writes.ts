import type { RecordError, SaveResult, WriteAnswer } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import type { HandlerCall, JobHook } from '../adapter.ts';
import { type OutboundResponse, parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { JournalSteps } from '../journal-steps.ts';
import { accountObject, writePipelines } from './account-objects.ts';
import type { HubSpotApi, PerConnectionState } from './connection-state.ts';
import { type ObjectRef, propertyInfos, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';
import { readRecords } from './records.ts';
import { prepare } from './write-prepare.ts';
import {
  type BatchAnswer,
  chunks,
  fail,
  failed,
  failedCall,
  type HubSpotErrorEntry,
  inOrder,
  malformedId,
  mapBatchAnswer,
  namesRecordValues,
  type Outcome,
  type Prepared,
  progressOf,
  recordErrors,
  written,
} from './write-results.ts';

/** HubSpot's batch endpoints take at most 100 inputs. */
const BATCH = HUBSPOT_PROFILE.batchWriteMaxInputs;

// After a create or upsert whose answer was lost: HubSpot is asked what it holds before answering.

/** How long before the send a record's creation still counts as the call's own (clock skew with HubSpot). */
const SKEW_MS = 5 * 60 * 1000;

/** Whether a record found after a lost answer was created by the call sent at `sentAt` (less the skew). */
export function createdSinceSend(record: { createdAt: number }, sentAt: number): boolean {
  return record.createdAt >= sentAt - SKEW_MS;
}

/** Case-folded: HubSpot stores emails in lower case, and a unique value matches regardless of case. */
const fold = (v: string) => v.trim().toLowerCase();

/** The records holding these values of a unique property: value (folded) → id and creation time. */
export async function findByUnique(
  api: HubSpotApi,
  object: ObjectRef,
  property: string,
  values: string[],
): Promise<Map<string, { id: string; createdAt: number }>> {
  const found = new Map<string, { id: string; createdAt: number }>();
  const { results = [] } = await readRecords(api, object, values, {
    idProperty: property,
    properties: [property],
  });
  for (const r of results) {
    const value = r.properties?.[property];
    if (typeof r.id !== 'string' || typeof value !== 'string') continue;
    found.set(fold(value), { id: r.id, createdAt: Date.parse(String(r.createdAt ?? '')) });
  }
  return found;
}

const notWritten = (property: string, existing?: string): SaveResult => ({
  success: false,
  errors: [
    fail(
      'CRM_PROXY_NOT_WRITTEN',
      existing === undefined
        ? `The create call got no answer, and HubSpot then held no record with this ${property}: it was not written. Send it again.`
        : `The create call got no answer, and the record with this ${property} (${existing}) existed before the call: HubSpot refuses a second one, so this record was not written.`,
      [property],
    ),
  ],
});

/**
 * The records of a create batch whose answer was lost, looked up by a unique property: a contact's
 * `email`, else the first property with unique values that a record carries. A record
 * found and created since the send (less the skew) was written; a record not found, or found
 * created earlier (HubSpot refuses a second record with the value), was not. Records without a
 * value, or sharing one with another record of the batch, are left out (their outcome stays
 * unknown), as are all records when there is no such property or HubSpot cannot be asked.
 */
async function reconcileCreates(
  api: HubSpotApi,
  object: ObjectRef,
  batch: Prepared[],
  sentAt: number,
): Promise<Outcome> {
  const out: Outcome = new Map();
  const carried = (name: string) => batch.some((p) => (p.properties[name] ?? '') !== '');
  const unique = async () =>
    (await propertyInfos(api, object)).find((p) => p.hasUniqueValue && carried(p.name))?.name;
  const property =
    object.typeId === '0-1' && carried('email') ? 'email' : await unique().catch(() => undefined);
  if (property === undefined) return out;
  const value = (p: Prepared) => fold(p.properties[property] ?? '');
  const counts = new Map<string, number>();
  for (const p of batch) if (p.properties[property]) counts.set(value(p), (counts.get(value(p)) ?? 0) + 1);
  const alone = batch.filter((p) => p.properties[property] && counts.get(value(p)) === 1);
  if (alone.length === 0) return out;
  const values = alone.map((p) => p.properties[property] as string);
  const found = await findByUnique(api, object, property, values).catch(() => undefined);
  if (found === undefined) return out;
  for (const p of alone) {
    const record = found.get(value(p));
    if (record !== undefined && Number.isNaN(record.createdAt)) continue;
    if (record === undefined) out.set(p.index, notWritten(property));
    else if (createdSinceSend(record, sentAt)) out.set(p.index, written(record.id));
    else out.set(p.index, notWritten(property, record.id));
  }
  return out;
}

// The batch loop of inserts, updates and deletes.

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
  return byRound.map((list) => chunks(list, BATCH));
}

/**
 * One create or update batch. A refusal of the whole call that names record values (a 409
 * duplicate, a 400 with property errors) wrote nothing, so the batch is split and sent again until
 * the refused records stand alone; any other failure fails the batch's records.
 */
async function writeBatch(
  api: HubSpotApi,
  object: ObjectRef,
  kind: 'create' | 'update',
  batch: Prepared[],
): Promise<Outcome> {
  const what = `batch ${kind}`;
  const sentAt = api.clock.now();
  let response: OutboundResponse;
  try {
    response = await api.send({
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
    });
    if (response.status !== 200 && response.status !== 201 && response.status !== 207) {
      if (namesRecordValues(response) && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        const [a, b] = await Promise.all([
          writeBatch(api, object, kind, batch.slice(0, half)),
          writeBatch(api, object, kind, batch.slice(half)),
        ]);
        return new Map([...a, ...b]);
      }
      if (namesRecordValues(response)) {
        const body = parseJson<HubSpotErrorEntry>(response) ?? {};
        const p = batch[0] as Prepared;
        return new Map([[p.index, failed(p.id, recordErrors(body))]]);
      }
      throw crmErrorFromResponse('hubspot', response, `${what} of ${object.name}`);
    }
  } catch (error) {
    const entry = failedCall(error, what);
    // A create whose answer was lost: what HubSpot holds now says, for records it can find.
    const found =
      kind === 'create' && entry.statusCode === 'CRM_PROXY_OUTCOME_UNKNOWN'
        ? await reconcileCreates(api, object, batch, sentAt)
        : new Map<number, SaveResult>();
    return new Map(batch.map((p) => [p.index, found.get(p.index) ?? failed(p.id, [entry])]));
  }
  return mapBatchAnswer(batch, parseJson<BatchAnswer>(response) ?? {});
}

/** What the records of a batch a job does not send are answered. */
const UNKNOWN = fail(
  'CRM_PROXY_OUTCOME_UNKNOWN',
  'The service stopped while this batch was being sent to HubSpot, so HubSpot may or may not have created the record; it was not sent again. Search HubSpot for it before sending it again.',
);
const CANCELLED = fail('CRM_PROXY_CANCELLED', 'The job was cancelled before this record was sent.');

/**
 * Batches round after round (a repeated id's later write wins), the batches of a round in
 * parallel, the job's progress reported as each finishes. In a durable job each batch is journaled:
 * `sending` before the call, its results after. A job resumed after a crash reuses answered
 * batches; a batch that was being sent may have reached HubSpot: resendable ones (updates, archives)
 * are sent again, creates are not (HubSpot has no way to find what a lost create made), and their
 * records are answered `CRM_PROXY_OUTCOME_UNKNOWN`.
 */
async function inRounds<T, K extends string | number>(
  job: JobHook | undefined,
  rounds: T[][][],
  batch: {
    keys: (items: T[]) => K[];
    journalKey: (round: number, index: number, keys: K[]) => string;
    resendable: boolean;
    send: (items: T[]) => Promise<Map<K, SaveResult>>;
  },
): Promise<Map<K, SaveResult>> {
  const steps = new JournalSteps<[K, SaveResult][]>(job);
  const journaled = async (items: T[], keys: K[], key: string): Promise<Map<K, SaveResult>> => {
    const state = await steps.state(key);
    if (state.kind === 'done') return new Map(state.results);
    let refusal: RecordError | undefined;
    if (state.kind === 'interrupted' && !batch.resendable) refusal = UNKNOWN;
    else if (job?.signal.aborted === true) refusal = CANCELLED;
    if (refusal !== undefined) return new Map(keys.map((k) => [k, { success: false, errors: [refusal] }]));
    return new Map(await steps.run(key, async () => [...(await batch.send(items))]));
  };
  const out = new Map<K, SaveResult>();
  const report = progressOf(job);
  for (const [n, round] of rounds.entries()) {
    const done = await Promise.all(
      round.map(async (items, k) => {
        const keys = batch.keys(items);
        const m = await journaled(items, keys, batch.journalKey(n, k, keys));
        report(m.values());
        return m;
      }),
    );
    for (const m of done) for (const [key, r] of m) out.set(key, r);
  }
  return out;
}

/** Checks, formats and writes records of one known object type; results in request order. */
export async function saveRecords(
  api: HubSpotApi,
  object: ObjectRef,
  records: unknown[],
  mode: 'insert' | 'update',
): Promise<SaveResult[]> {
  const { prepared, refused } = await prepare(api, object, records, mode);
  const kind = mode === 'insert' ? 'create' : 'update';
  const sent = await inRounds(api.call.job, rounds(prepared), {
    keys: (batch) => batch.map((p) => p.index),
    journalKey: (n, _, indexes) => `hubspot.${kind}.${n}.${indexes[0]}.${indexes.length}`,
    resendable: kind === 'update',
    send: (batch) => writeBatch(api, object, kind, batch),
  });
  return inOrder(records.length, new Map([...refused, ...sent]), prepared);
}

/** Which of these ids (at most 100) are live records: one batch/read. */
export async function existing(api: HubSpotApi, object: ObjectRef, ids: string[]): Promise<Set<string>> {
  const { results = [] } = await readRecords(api, object, ids);
  return new Set(results.flatMap((r) => (typeof r.id === 'string' ? [r.id] : [])));
}

const notFound = (object: ObjectRef, id: string): SaveResult =>
  failed(id, [
    fail(
      'OBJECT_NOT_FOUND',
      `HubSpot has no live ${object.name} record with id ${id} (never existed, or already deleted).`,
    ),
  ]);

/**
 * One archive batch. HubSpot's batch archive answers 204 whether or not an id exists, so the
 * batch's ids are read first: ids that are not live records fail as not found instead of
 * passing for deleted.
 */
async function archiveBatch(
  api: HubSpotApi,
  object: ObjectRef,
  ids: string[],
): Promise<Map<string, SaveResult>> {
  const out = new Map<string, SaveResult>();
  try {
    const live = await existing(api, object, ids);
    for (const id of ids) if (!live.has(id)) out.set(id, notFound(object, id));
    const send = ids.filter((id) => live.has(id));
    if (send.length === 0) return out;
    await api.json({
      method: 'POST',
      path: `/crm/v3/objects/${encodeURIComponent(object.path)}/batch/archive`,
      body: { inputs: send.map((id) => ({ id })) },
      // Archiving twice archives once.
      idempotent: true,
      label: 'hubspot.objects.batch.archive',
      ok: [204, 200],
      what: `batch archive of ${object.name}`,
    });
    for (const id of send) out.set(id, written(id));
  } catch (error) {
    const entry = failedCall(error, 'batch archive');
    for (const id of ids) if (!out.has(id)) out.set(id, failed(id, [entry]));
  }
  return out;
}

async function deleteRecords(
  api: HubSpotApi,
  input: { objectName: string | undefined; ids: string[] },
): Promise<WriteAnswer> {
  if (input.objectName === undefined) {
    throw new ApiError(
      'invalid_body',
      'HubSpot record ids do not say which object type they belong to: use POST /v1/object/delete/{object_name} (for example /v1/object/delete/contacts).',
      { details: [{ path: '/object_name', message: 'required for HubSpot' }] },
    );
  }
  const object = await resolveObject(api, input.objectName);
  const valid = [...new Set(input.ids.filter((id) => HUBSPOT_PROFILE.idPattern.test(id)))];
  const results = await inRounds(api.call.job, [chunks(valid, BATCH)], {
    keys: (ids) => ids,
    journalKey: (_, k) => `hubspot.archive.${k}`,
    // Archiving again is harmless; ids an interrupted call archived then answer not found.
    resendable: true,
    send: (ids) => archiveBatch(api, object, ids),
  });
  return { data: input.ids.map((id) => results.get(id) ?? failed(id, [malformedId(id)])) };
}

/**
 * HubSpot writes: insert, update and delete (archive), in batches of 100 run in parallel
 * under the connection's pacer and concurrency cap. Every result lands at its record's position.
 */
export function hubspotWrites(hs: PerConnectionState) {
  const save =
    (mode: 'insert' | 'update') =>
    async (call: HandlerCall, input: { objectName: string; records: unknown[] }): Promise<WriteAnswer> => {
      const api = hs.at(call);
      const account = accountObject(input.objectName);
      if (account !== undefined) return writePipelines(api, account, input.records, mode);
      const object = await resolveObject(api, input.objectName);
      return { data: await saveRecords(api, object, input.records, mode) };
    };
  return {
    insert: save('insert'),
    update: save('update'),
    delete: (call: HandlerCall, input: { objectName: string | undefined; ids: string[] }) =>
      deleteRecords(hs.at(call), input),
  };
}
