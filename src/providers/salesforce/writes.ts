import type { SaveResult, UpsertOutcome } from '../../domain/operations.ts';
import { ApiError, unknownFields } from '../../errors/index.ts';
import { backoffMs } from '../../lib/backoff.ts';
import type { Clock } from '../../lib/clock.ts';
import { closestName } from '../../lib/closest.ts';
import { positionsWhere } from '../../lib/positions.ts';
import { retrying } from '../../lib/retry.ts';
import type { CrmSession, Handler, HandlerCall, JobHook } from '../adapter.ts';
import { type AllowanceBook, leftShare, type OrgAllowance } from './allowance.ts';
import type { DescribeFacet, ObjectDescribe } from './describe-types.ts';
import type {
  LookupField,
  PreparedRecord,
  SalesforceDataFacet,
  SaveOperation,
  WriteInterface,
  WriteJournal,
} from './facet.ts';
import { prepareRecords } from './format.ts';
import { checkMatchValue } from './match-value.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { failedCallEntry } from './save-collections.ts';

const LOCK = SALESFORCE_PROFILE.lockRetry;

const isLocked = (r: SaveResult) => !r.success && r.errors.some((e) => e.statusCode === LOCK.statusCode);

/** Positions of the records that failed only because another transaction held a row lock. */
export function lockedPositions(results: SaveResult[]): number[] {
  return positionsWhere(results, isLocked);
}

/** Wait before lock-retry round `round` (1-based), or undefined when no round is left or needed. */
export function lockRetryWait(locked: number, round: number, random?: () => number): number | undefined {
  if (locked === 0 || round > LOCK.rounds) return undefined;
  return backoffMs(round, { baseMs: LOCK.baseMs, maxMs: LOCK.maxMs, random });
}

const isEmpty = (record: PreparedRecord) => Object.keys(record).length === 0;

/** The interface of a write and why it was chosen (`X-CRM-Proxy-Interface: bulk2; reason=…`). */
export interface WritePlan {
  via: WriteInterface;
  reason: string;
}

/** What the plan of a large write depends on besides its size. */
export interface PlanPolicy {
  allowances: AllowanceBook;
  /** Below this share of the daily allowance left, the most frugal plan; at or above, the fastest. */
  frugalBelow: number;
}

/**
 * The plan for `count` records. Below the bulk threshold sObject Collections are both the fastest
 * and the most frugal plan. From it on, Collections stay the fastest (16 calls in flight) while
 * Bulk API 2.0 spends the fewest calls (a fixed ~7–11 against one per 200 records): the org's
 * allowance decides. Unknown allowance: the frugal plan, which cannot exhaust an org.
 */
export function planFor(
  count: number,
  bulkThreshold: number,
  allowance: Pick<OrgAllowance, 'used' | 'limit'> | undefined,
  frugalBelow: number,
): WritePlan {
  if (count < bulkThreshold) return { via: 'collections', reason: `under-${bulkThreshold}-records` };
  if (allowance === undefined) return { via: 'bulk2', reason: 'allowance-unknown' };
  const left = leftShare(allowance);
  const reason = `allowance-${Math.floor(left * 100)}%-left`;
  return { via: left >= frugalBelow ? 'collections' : 'bulk2', reason };
}

async function choosePlan(
  data: SalesforceDataFacet,
  policy: PlanPolicy,
  session: CrmSession,
  count: number,
  requested: string | undefined,
): Promise<WritePlan> {
  const via = forced(requested);
  if (via !== undefined) return { via, reason: 'requested' };
  const allowance = count < data.bulkThreshold ? undefined : await policy.allowances.current(session);
  return planFor(count, data.bulkThreshold, allowance, policy.frugalBelow);
}

/** The interface for a lock-retry round: the same rule on the allowance last seen (no extra call). */
function retryInterface(
  data: SalesforceDataFacet,
  policy: PlanPolicy,
  connectionId: string,
  count: number,
): WriteInterface {
  return planFor(count, data.bulkThreshold, policy.allowances.latest(connectionId), policy.frugalBelow).via;
}

function forced(via: string | undefined): WriteInterface | undefined {
  return via === 'collections' || via === 'bulk2' ? via : undefined;
}

/** The entry of each record of a lock-retry round that failed as a whole. */
function roundFailed(error: unknown): SaveResult {
  const entry =
    error instanceof ApiError
      ? { statusCode: error.code.toUpperCase(), message: error.message, fields: [] }
      : failedCallEntry(error, 'lock-retry');
  return { success: false, errors: [entry] };
}

/**
 * Records that failed only on a row lock were not written, so sending them again cannot write them
 * twice: they go again (alone, after a backoff on the clock), up to `lockRetry.rounds` times, each
 * round through the interface the plan picks for their number.
 */
async function withLockRetries<T extends PreparedRecord | string>(
  clock: Clock,
  items: T[],
  via: WriteInterface,
  retryVia: (count: number) => WriteInterface,
  send: (items: T[], via: WriteInterface, round: number) => Promise<SaveResult[]>,
): Promise<SaveResult[]> {
  const results = await send(items, via, 1);
  let pending = lockedPositions(results);
  await retrying(clock, {
    attempt: async (n) => {
      if (n === 1) return pending;
      const resent = pending.map((i) => items[i] as T);
      // Earlier rounds wrote records: a failed retry round fails only its own records.
      const again = await send(resent, retryVia(resent.length), n).catch((error: unknown) =>
        resent.map(() => roundFailed(error)),
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

/**
 * The external id field an insert's records can be found by after a lost answer: one the records
 * carry, a unique one first (Salesforce then refuses a second record holding a value).
 */
function lookupField(meta: ObjectDescribe, records: PreparedRecord[]): LookupField | undefined {
  const carried = meta.fields.filter(
    (f) => f['externalId'] === true && records.some((r) => (r[f.name] ?? '') !== ''),
  );
  const field = carried.find((f) => f['unique'] === true) ?? carried[0];
  return field === undefined ? undefined : { name: field.name, type: String(field['type'] ?? 'string') };
}

export function salesforceSave<O extends SaveOperation>(
  operation: O,
  clock: Clock,
  describe: DescribeFacet,
  data: SalesforceDataFacet,
  policy: PlanPolicy,
): Handler<O> {
  return async ({ session, limiter, job }, input) => {
    const meta = await describe.describeObject(session, input.objectName);
    if (meta === null) throw await describe.unknownObject(session, input.objectName);
    // Every record is checked before any is sent: an unknown field anywhere fails the whole request.
    const prepared = prepareRecords(meta, input.records, operation);
    // Records without a single field make a Bulk CSV without columns, which Bulk refuses as a
    // whole; Collections sends them and Salesforce answers each one (REQUIRED_FIELD_MISSING, …).
    const { via, reason } = prepared.every(isEmpty)
      ? { via: 'collections' as const, reason: 'records-without-fields' }
      : await choosePlan(data, policy, session, prepared.length, input.via);
    const journal = journals(
      clock,
      job,
      via,
      new Map(meta.fields.map((f) => [f.name, String(f['type'] ?? '')])),
    );
    job?.progress({ processed: 0, succeeded: 0, failed: 0 }, via);
    const again = (count: number) => retryInterface(data, policy, session.connectionId, count);
    const lookup = operation === 'insert' ? lookupField(meta, prepared) : undefined;
    const results = await withLockRetries(clock, prepared, via, again, (items, how, round) =>
      data.save(session, limiter, operation, meta.name, items, how, journal(round), lookup),
    );
    return { data: results, via, reason };
  };
}

export function salesforceDelete(
  clock: Clock,
  data: SalesforceDataFacet,
  policy: PlanPolicy,
): Handler<'delete'> {
  return async ({ session, limiter, job }, input) => {
    const { via, reason } = await choosePlan(data, policy, session, input.ids.length, input.via);
    const journal = journals(clock, job, via, new Map<string, string>());
    job?.progress({ processed: 0, succeeded: 0, failed: 0 }, via);
    const again = (count: number) => retryInterface(data, policy, session.connectionId, count);
    const results = await withLockRetries(clock, input.ids, via, again, (items, how, round) =>
      data.remove(session, limiter, items, how, journal(round)),
    );
    return { data: results, via, reason };
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
