import type { SaveResult, UpsertOutcome } from '../../domain/operations.ts';
import { ApiError, unknownFields } from '../../errors/index.ts';
import { backoffMs } from '../../lib/backoff.ts';
import type { Clock } from '../../lib/clock.ts';
import { closestName } from '../../lib/closest.ts';
import { retrying } from '../../lib/retry.ts';
import { yieldToLoop } from '../../lib/yield-to-loop.ts';
import type { Handler, HandlerCall, JobHook } from '../adapter.ts';
import type { DescribeFacet } from './describe-types.ts';
import type {
  PreparedRecord,
  SalesforceDataFacet,
  SaveOperation,
  WriteInterface,
  WriteJournal,
} from './facet.ts';
import { prepareRecords } from './format.ts';
import { checkMatchValue } from './match-value.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

const LOCK = SALESFORCE_PROFILE.lockRetry;

const isLocked = (r: SaveResult) => !r.success && r.errors.some((e) => e.statusCode === LOCK.statusCode);

/** Positions of the records that failed only because another transaction held a row lock. */
export function lockedPositions(results: SaveResult[]): number[] {
  return results.flatMap((r, i) => (isLocked(r) ? [i] : []));
}

/** Wait before lock-retry round `round` (1-based), or undefined when no round is left or needed. */
export function lockRetryWait(locked: number, round: number, random?: () => number): number | undefined {
  if (locked === 0 || round > LOCK.rounds) return undefined;
  return backoffMs(round, { baseMs: LOCK.baseMs, maxMs: LOCK.maxMs, random });
}

const isEmpty = (record: PreparedRecord) => Object.keys(record).length === 0;

/** Interface for `count` records: Bulk API 2.0 from the threshold on, sObject Collections below. */
function chooseInterface(data: SalesforceDataFacet, count: number): WriteInterface {
  return count >= data.bulkThreshold ? 'bulk2' : 'collections';
}

function forced(via: string | undefined): WriteInterface | undefined {
  return via === 'collections' || via === 'bulk2' ? via : undefined;
}

/**
 * Records that failed only on a row lock were not written, so sending them again cannot write them
 * twice: they go again (alone, after a backoff on the clock), up to `lockRetry.rounds` times, each
 * round through the interface that suits their number.
 */
async function withLockRetries<T extends PreparedRecord | string>(
  clock: Clock,
  items: T[],
  via: WriteInterface,
  data: SalesforceDataFacet,
  send: (items: T[], via: WriteInterface, round: number) => Promise<SaveResult[]>,
): Promise<SaveResult[]> {
  const results = await send(items, via, 1);
  let pending = lockedPositions(results);
  await retrying(clock, {
    attempt: async (n) => {
      if (n === 1) return pending;
      const again = await send(
        pending.map((i) => items[i] as T),
        chooseInterface(data, pending.length),
        n,
      );
      pending.forEach((i, k) => {
        const r = again[k];
        if (r !== undefined) results[i] = r;
      });
      pending = lockedPositions(results);
      return pending;
    },
    next: (locked, n) => lockRetryWait(locked.length, n),
  });
  return results;
}

/**
 * The journal of each lock-retry round of a job's write (none outside a job). Progress counts the
 * first round only: later rounds resend records already counted.
 */
function journals(
  clock: Clock,
  hook: JobHook | undefined,
  via: WriteInterface,
  fieldTypes: ReadonlyMap<string, string>,
): (round: number) => WriteJournal | undefined {
  const parts = new Map<string, [number, number]>();
  return (round) =>
    hook === undefined
      ? undefined
      : {
          hook,
          scope: `r${round}`,
          fieldTypes,
          now: () => new Date(clock.now()).toISOString(),
          report(part, processed, failed) {
            if (round !== 1) return;
            parts.set(part, [processed, failed]);
            let p = 0;
            let f = 0;
            for (const [a, b] of parts.values()) {
              p += a;
              f += b;
            }
            hook.progress({ processed: p, succeeded: p - f, failed: f }, via);
          },
        };
}

export function salesforceSave<O extends SaveOperation>(
  operation: O,
  clock: Clock,
  describe: DescribeFacet,
  data: SalesforceDataFacet,
): Handler<O> {
  return async ({ session, limiter, job }, input) => {
    const meta = await describe.describeObject(session, input.objectName);
    if (meta === null) throw await describe.unknownObject(session, input.objectName);
    // Validation and the describe lookup ran in this turn of the loop; preparing 10,000 records takes its own.
    await yieldToLoop();
    const prepared = prepareRecords(meta, input.records, operation);
    // Records without a single field make a Bulk CSV without columns, which Bulk refuses as a
    // whole; Collections sends them and Salesforce answers each one (REQUIRED_FIELD_MISSING, …).
    const via = prepared.every(isEmpty)
      ? 'collections'
      : (forced(input.via) ?? chooseInterface(data, prepared.length));
    const journal = journals(
      clock,
      job,
      via,
      new Map(meta.fields.map((f) => [f.name, String(f['type'] ?? '')])),
    );
    job?.progress({ processed: 0, succeeded: 0, failed: 0 }, via);
    const results = await withLockRetries(clock, prepared, via, data, (items, how, round) =>
      data.save(session, limiter, operation, meta.name, items, how, journal(round)),
    );
    return { data: results, via };
  };
}

export function salesforceDelete(clock: Clock, data: SalesforceDataFacet): Handler<'delete'> {
  return async ({ session, limiter, job }, input) => {
    const via = forced(input.via) ?? chooseInterface(data, input.ids.length);
    const journal = journals(clock, job, via, new Map<string, string>());
    job?.progress({ processed: 0, succeeded: 0, failed: 0 }, via);
    const results = await withLockRetries(clock, input.ids, via, data, (items, how, round) =>
      data.remove(session, limiter, items, how, journal(round)),
    );
    return { data: results, via };
  };
}

/**
 * Upsert one record on `match_key`. The match key must be a field of the object and the record
 * must carry a value for it (400 otherwise, before anything is sent).
 */
export function salesforceUpsert(describe: DescribeFacet, data: SalesforceDataFacet): Handler<'upsert'> {
  return async ({ session, limiter }: HandlerCall, input): Promise<UpsertOutcome> => {
    const meta = await describe.describeObject(session, input.objectName);
    if (meta === null) throw await describe.unknownObject(session, input.objectName);
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
    const [prepared] = prepareRecords(meta, [input.record], 'upsert');
    const value = prepared?.[field.name];
    if (prepared === undefined || value === undefined || value === null || value === '') {
      throw new ApiError(
        'missing_match_value',
        `The record has no value for its match key ${field.name}; upsert needs it to find the record to update.`,
        { details: [{ path: `/data/0/${field.name}`, match_key: field.name }] },
      );
    }
    checkMatchValue(field.name, value);
    return data.upsert(session, limiter, meta, prepared, field.name);
  };
}
