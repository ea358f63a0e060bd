import type { SaveResult, WriteAnswer } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { backoffMs } from '../../lib/backoff.ts';
import { positionsWhere } from '../../lib/positions.ts';
import { retrying } from '../../lib/retry.ts';
import type { OperationInputs } from '../adapter.ts';
import type { OrgAllowance } from './allowance.ts';
import { bulkDelete, bulkWrite } from './bulk2.ts';
import { viaCollections, type WriteJournal } from './collections.ts';
import { knownObject, type ObjectDescribe } from './describe.ts';
import { type PreparedRecord, prepareRecords, toCsvRows } from './format.ts';
import { failedCallEntry, type Org } from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import type { KeyField } from './reconcile.ts';

const LOCK = SALESFORCE_PROFILE.lockRetry;

/** Positions of the records that failed only because another transaction held a row lock. */
export const lockedPositions = (results: SaveResult[]): number[] =>
  positionsWhere(results, (r) => !r.success && r.errors.some((e) => e.statusCode === LOCK.statusCode));

/** Wait before lock-retry round `round` (1-based), or undefined when no round is left or needed. */
export function lockRetryWait(locked: number, round: number, random?: () => number): number | undefined {
  if (locked === 0 || round > LOCK.rounds) return undefined;
  return backoffMs(round, { baseMs: LOCK.baseMs, maxMs: LOCK.maxMs, random });
}

/** The interface of a write and why it was chosen (`X-CRM-Proxy-Interface: bulk2; reason=…`). */
interface WritePlan {
  via: 'collections' | 'bulk2';
  reason: string;
}

/** From the bulk threshold on, the allowance left picks the fastest or the frugal plan (unknown: frugal, safe). */
function planFor(
  { bulkThreshold, frugalBelow }: Pick<Org, 'bulkThreshold' | 'frugalBelow'>,
  count: number,
  allowance: Pick<OrgAllowance, 'used' | 'limit'> | undefined,
): WritePlan {
  if (count < bulkThreshold) return { via: 'collections', reason: `under-${bulkThreshold}-records` };
  if (allowance === undefined) return { via: 'bulk2', reason: 'allowance-unknown' };
  const left = Math.max(0, allowance.limit - allowance.used) / allowance.limit;
  const reason = `allowance-${Math.floor(left * 100)}%-left`;
  return { via: left >= frugalBelow ? 'collections' : 'bulk2', reason };
}

async function choosePlan(org: Org, count: number, requested: string | undefined): Promise<WritePlan> {
  if (requested === 'collections' || requested === 'bulk2') return { via: requested, reason: 'requested' };
  const allowance =
    count < org.bulkThreshold ? undefined : await org.allowances.current(org.session, org.api);
  return planFor(org, count, allowance);
}

/** The entry of each record of a lock-retry round that failed as a whole. */
function roundFailed(error: unknown): SaveResult {
  const entry =
    error instanceof ApiError
      ? { statusCode: error.code.toUpperCase(), message: error.message, fields: [] }
      : failedCallEntry(error, 'lock-retry');
  return { success: false, errors: [entry] };
}

/** The external id field to find an insert's records by after a lost answer: one they carry, unique first. */
function lookupField(meta: ObjectDescribe, records: PreparedRecord[]): KeyField | undefined {
  const carried = meta.fields.filter(
    (f) => f['externalId'] === true && records.some((r) => (r[f.name] ?? '') !== ''),
  );
  const field = carried.find((f) => f['unique'] === true) ?? carried[0];
  return field === undefined ? undefined : { name: field.name, type: String(field['type'] ?? 'string') };
}

/** Insert or update: every record is checked before any is sent (an unknown field anywhere fails the whole request). */
export async function saveRecords(
  org: Org,
  operation: 'insert' | 'update',
  input: OperationInputs['insert'],
): Promise<WriteAnswer> {
  const meta = await knownObject(org, input.objectName);
  const records = prepareRecords(meta, input.records, operation);
  // Bulk refuses a CSV without columns as a whole; Collections gets an answer per record.
  const plan: WritePlan = records.every((r) => Object.keys(r).length === 0)
    ? { via: 'collections', reason: 'records-without-fields' }
    : await choosePlan(org, records.length, input.via);
  const lookup = operation === 'insert' ? lookupField(meta, records) : undefined;
  return write(org, records, plan, (some, how, journal) => {
    if (how === 'collections') return viaCollections(org, operation, meta.name, some, journal, lookup);
    const { header, rows } = toCsvRows(some);
    // A job's few calls are sequential and mostly waits: it takes no slot of the limiter.
    return bulkWrite(org, operation, meta.name, header, rows, journal);
  });
}

/** Delete by ids, which name their objects: Bulk runs one job per object. */
export async function deleteRecords(org: Org, input: OperationInputs['delete']): Promise<WriteAnswer> {
  const plan = await choosePlan(org, input.ids.length, input.via);
  return write(org, input.ids, plan, (ids, how, journal) =>
    how === 'collections' ? viaCollections(org, 'delete', null, ids, journal) : bulkDelete(org, ids, journal),
  );
}

/**
 * Runs a planned write. Records that failed only on a row lock were not written: they are resent
 * after a backoff, up to `lockRetry.rounds` times, each round planned on the allowance last seen.
 * Each round has its own journal; progress counts the first only (later rounds resend counted records).
 */
async function write<T extends PreparedRecord | string>(
  org: Org,
  items: T[],
  plan: WritePlan,
  send: (items: T[], via: WritePlan['via'], journal: WriteJournal | undefined) => Promise<SaveResult[]>,
): Promise<WriteAnswer> {
  const { job: hook, clock } = org;
  const parts = new Map<string, [number, number]>();
  const journal = (round: number): WriteJournal | undefined =>
    hook && {
      hook,
      scope: `r${round}`,
      report(part, processed, failed) {
        if (round !== 1) return;
        parts.set(part, [processed, failed]);
        const [p, f] = [...parts.values()].reduce(([p, f], [a, b]) => [p + a, f + b], [0, 0]);
        hook.progress({ processed: p, succeeded: p - f, failed: f }, plan.via);
      },
    };
  hook?.progress({ processed: 0, succeeded: 0, failed: 0 }, plan.via);
  const results = await send(items, plan.via, journal(1));
  let pending = lockedPositions(results);
  await retrying(clock, {
    attempt: async (n) => {
      if (n === 1) return pending;
      const resent = pending.map((i) => items[i] as T);
      const allowance = org.allowances.latest(org.session.connectionId);
      const how = planFor(org, resent.length, allowance).via;
      // Earlier rounds wrote records: a failed retry round fails only its own records.
      const again = await send(resent, how, journal(n)).catch((error: unknown) =>
        resent.map(() => roundFailed(error)),
      );
      for (const [k, i] of pending.entries()) results[i] = again[k] ?? (results[i] as SaveResult);
      pending = lockedPositions(results);
      return pending;
    },
    next: (locked, n) => lockRetryWait(locked.length, n),
  });
  return { data: results, via: plan.via, reason: plan.reason };
}
