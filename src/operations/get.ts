import { ApiError } from '../errors/index.ts';
import { hinter } from '../lib/closest.ts';
import type { CrmRecord, ObjectDescribe } from '../providers/adapter.ts';
import type { HubSpotGetResult } from '../providers/hubspot/facet.ts';
import { SALESFORCE_PROFILE } from '../providers/salesforce/profile.ts';
import type { Connection } from '../store/types.ts';
import { ensureObjectName, ensureOffered, notImplemented, tooMany, translatingCrmErrors } from './checks.ts';
import type { OperationDeps } from './deps.ts';
import { unknownObject } from './describe.ts';
import { openSession } from './session.ts';

export interface GetInput {
  ids: string[];
  fields?: string[] | undefined;
}

export interface IdError {
  index: number;
  id: string;
  code: 'malformed_id';
  message: string;
}

/** The answer, as a value or as ready JSON text of the same shape (`{"data": [...]}`). */
export type GetResult =
  | {
      data: Array<CrmRecord | null>;
      /** Per-id notes (ids that cannot be ids of this CRM); absent when there are none. */
      errors?: IdError[];
    }
  | { json: string }
  /** HubSpot: its own per-id error entries (and malformed ids) in `errors`. */
  | HubSpotGetResult;

/** `[a,b]` + `[c]` → `[a,b,c]`, on JSON array texts. */
export function joinJsonArrays(texts: string[]): string {
  const inner = texts.map((t) => t.slice(1, -1).trim()).filter((t) => t !== '');
  return `[${inner.join(',')}]`;
}

/**
 * Get records by id (spec 4.1 rule 2, decisions §4): one entry per id passed, in order; `null`
 * where no record exists. Duplicate ids are fetched once and answered at each place. Ids are
 * sent in as few calls as the CRM allows (2,000 per sObject Collections retrieve), in parallel
 * under the connection's concurrency cap.
 *
 * Malformed ids (not 15/18 alphanumerics) and ids whose key prefix belongs to another object are
 * answered `null` without being sent — Salesforce itself answers `null` for an invalid id — and the
 * malformed ones are listed in `errors`, so a typo is visible without failing the whole request.
 */
export async function getRecords(
  deps: OperationDeps,
  connection: Connection,
  objectName: string,
  input: GetInput,
): Promise<GetResult> {
  const adapter = deps.registry[connection.provider];
  ensureOffered(adapter, 'get');
  ensureObjectName(adapter, objectName);
  const limit = adapter.capabilities.limits.getIds;
  if (input.ids.length > limit)
    throw tooMany('too_many_ids', input.ids.length, limit, `get on ${adapter.provider}`);
  const objects = adapter.hubspotObjects;
  if (objects !== undefined) {
    // HubSpot (spec 4.2): at most 100 ids, so one paced batch/read call.
    const limiter = deps.limiters.for(connection.id);
    return translatingCrmErrors(() =>
      objects.get(openSession(deps, adapter, connection), objectName, input, limiter),
    );
  }
  const { records, describe } = adapter;
  if (records === undefined || describe === undefined) throw notImplemented('get', adapter.provider);

  return translatingCrmErrors(async () => {
    const session = openSession(deps, adapter, connection);
    const meta = await describe.describeObject(session, objectName);
    if (meta === null) throw unknownObject(objectName);
    const fields = resolveFields(meta, input.fields);

    const errors: IdError[] = [];
    const wanted = new Set<string>();
    input.ids.forEach((id, index) => {
      if (!SALESFORCE_PROFILE.idPattern.test(id)) {
        errors.push({
          index,
          id,
          code: 'malformed_id',
          message: 'Not a Salesforce id (15 or 18 letters and digits).',
        });
      } else if (meta.keyPrefix == null || id.startsWith(meta.keyPrefix)) {
        wanted.add(id);
      }
    });

    const unique = [...wanted];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += records.retrieveBatchSize) {
      chunks.push(unique.slice(i, i + records.retrieveBatchSize));
    }
    const limiter = deps.limiters.for(connection.id);
    if (errors.length === 0 && unique.length === input.ids.length) {
      // Every id is distinct and sent, so the CRM's arrays are already the answer, in order:
      // pass their text on rather than parse and re-serialise every record.
      const texts = await Promise.all(
        chunks.map((chunk) => limiter.run(() => records.retrieveJson(session, meta.name, chunk, fields))),
      );
      return { json: `{"data":${joinJsonArrays(texts)}}` };
    }
    const found = new Map<string, CrmRecord | null>();
    await Promise.all(
      chunks.map((chunk) =>
        limiter.run(async () => {
          const got = await records.retrieve(session, meta.name, chunk, fields);
          chunk.forEach((id, i) => {
            found.set(id, got[i] ?? null);
          });
        }),
      ),
    );
    const data = input.ids.map((id) => found.get(id) ?? null);
    return errors.length === 0 ? { data } : { data, errors };
  });
}

/**
 * The fields to ask for: every field of the object when none are given (the retrieve call needs
 * an explicit list), else the given ones in their canonical casing, with `Id` always included.
 * Unknown names fail the request with the closest real field as a hint.
 */
function resolveFields(meta: ObjectDescribe, requested: string[] | undefined): string[] {
  const all = meta.fields.map((f) => f.name);
  if (requested === undefined || requested.length === 0) return all;
  const byLower = new Map(all.map((name) => [name.toLowerCase(), name]));
  const out = new Set<string>(['Id']);
  const hint = hinter(all);
  const unknown: Array<{ path: string; field: string; did_you_mean: string | null }> = [];
  requested.forEach((name, index) => {
    const canonical = byLower.get(name.toLowerCase());
    if (canonical === undefined) {
      unknown.push({ path: `/data/fields/${index}`, field: name, did_you_mean: hint(name) });
    } else {
      out.add(canonical);
    }
  });
  if (unknown.length > 0) {
    const list = unknown
      .map((u) => `"${u.field}"${u.did_you_mean === null ? '' : ` (did you mean "${u.did_you_mean}"?)`}`)
      .join(', ');
    throw new ApiError(
      'unknown_field',
      `${meta.name} has no field ${list}. POST /v1/describe/${meta.name} lists its fields.`,
      { details: unknown },
    );
  }
  return [...out];
}
