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
  malformedId,
  mapBatchAnswer,
  namesRecordValues,
  type Outcome,
  type Prepared,
  recordErrors,
  UNREPORTED,
  written,
} from './write-results.ts';

const BATCH = HUBSPOT_PROFILE.batchWriteMaxInputs;

/** Clock skew with HubSpot allowed when judging whether a record was created by our call. */
const SKEW_MS = 5 * 60 * 1000;

/** Whether a record found after a lost answer was created by the call sent at `sentAt`. */
export function createdSinceSend(record: { createdAt: number }, sentAt: number): boolean {
  return record.createdAt >= sentAt - SKEW_MS;
}

/** HubSpot stores emails in lower case, and a unique value matches regardless of case. */
const fold = (v: string) => v.trim().toLowerCase();

/** The records holding these values of a unique property, by folded value. */
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
 * A create batch whose answer was lost, looked up by a unique property: found and created since the
 * send, written; absent or older (HubSpot refuses a duplicate), not written; others stay unknown.
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

/** Batches of at most 100 in rounds, no id twice in one round (HubSpot refuses that). */
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

/** One create or update batch; a refusal naming record values wrote nothing, so the batch is split. */
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
        // Keys left undefined are not sent.
        inputs: batch.map((p) => ({
          id: p.id,
          properties: p.properties,
          associations: p.associations,
          objectWriteTraceId: String(p.index),
        })),
      },
      idempotent: false,
      label: `hubspot.objects.batch.${kind}`,
    });
    if (response.status !== 200 && response.status !== 201 && response.status !== 207) {
      if (namesRecordValues(response)) {
        const [p] = batch as [Prepared];
        if (batch.length === 1)
          return new Map([[p.index, failed(p.id, recordErrors(parseJson(response) ?? {}))]]);
        const half = Math.ceil(batch.length / 2);
        const [a, b] = await Promise.all([
          writeBatch(api, object, kind, batch.slice(0, half)),
          writeBatch(api, object, kind, batch.slice(half)),
        ]);
        return new Map([...a, ...b]);
      }
      throw crmErrorFromResponse('hubspot', response, `${what} of ${object.name}`);
    }
  } catch (error) {
    const entry = failedCall(error, what);
    const found =
      kind === 'create' && entry.statusCode === 'CRM_PROXY_OUTCOME_UNKNOWN'
        ? await reconcileCreates(api, object, batch, sentAt)
        : new Map<number, SaveResult>();
    return new Map(batch.map((p) => [p.index, found.get(p.index) ?? failed(p.id, [entry])]));
  }
  return mapBatchAnswer(batch, parseJson<BatchAnswer>(response) ?? {});
}

/** The records of an interrupted create batch a resumed job does not resend. */
const UNKNOWN = fail(
  'CRM_PROXY_OUTCOME_UNKNOWN',
  'The service stopped while this batch was being sent to HubSpot, so HubSpot may or may not have created the record; it was not sent again. Search HubSpot for it before sending it again.',
);
const CANCELLED = fail('CRM_PROXY_CANCELLED', 'The job was cancelled before this record was sent.');

/**
 * Rounds in order (a repeated id's later write wins), a round's batches in parallel, journaled in a
 * durable job; a resumed job resends interrupted batches only when `resendable`.
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
  const counts = { processed: 0, succeeded: 0, failed: 0 };
  for (const [n, round] of rounds.entries()) {
    const done = await Promise.all(
      round.map(async (items, k) => {
        const keys = batch.keys(items);
        const m = await journaled(items, keys, batch.journalKey(n, k, keys));
        if (job !== undefined) {
          for (const r of m.values()) counts[r.success ? 'succeeded' : 'failed']++;
          counts.processed += m.size;
          job.progress({ ...counts });
        }
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
  const outcome = new Map([...refused, ...sent]);
  const ids = new Map(prepared.map((p) => [p.index, p.id]));
  // A record HubSpot's answers never named.
  return records.map((_, i) => outcome.get(i) ?? failed(ids.get(i), [UNREPORTED]));
}

/** Which of these ids (at most 100) are live records: one batch/read. */
export async function existing(api: HubSpotApi, object: ObjectRef, ids: string[]): Promise<Set<string>> {
  const { results = [] } = await readRecords(api, object, ids);
  return new Set(results.flatMap((r) => (typeof r.id === 'string' ? [r.id] : [])));
}

/** One archive batch. HubSpot answers 204 for ids that do not exist, so the ids are read first. */
async function archiveBatch(
  api: HubSpotApi,
  object: ObjectRef,
  ids: string[],
): Promise<Map<string, SaveResult>> {
  const out = new Map<string, SaveResult>();
  try {
    const live = await existing(api, object, ids);
    const send = ids.filter((id) => live.has(id));
    for (const id of ids) {
      if (live.has(id)) continue;
      const message = `HubSpot has no live ${object.name} record with id ${id} (never existed, or already deleted).`;
      out.set(id, failed(id, [fail('OBJECT_NOT_FOUND', message)]));
    }
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

/** Insert, update and delete (archive) in parallel batches of 100; results in request order. */
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
