import type { CrmRecord, SaveResult } from '../../domain/operations.ts';
import { parseJson } from '../client/types.ts';
import { fieldTypesOf, knownObject } from './describe.ts';
import type { PreparedRecord } from './format.ts';
import { failure, type Org, send } from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';
import { NUMBER_TYPES, query, soqlLiteral } from './query.ts';

/** Field types whose values Salesforce gives back exactly as sent (numbers compared as numbers). */
const COMPARABLE = new Set([
  ...'string textarea email phone url picklist combobox id reference boolean date'.split(' '),
  ...NUMBER_TYPES,
]);

/** How long before the journaled send time a created record still counts (clock skew with the org). */
const SKEW_MS = 5 * 60 * 1000;

function normalize(type: string, value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return '';
  if (NUMBER_TYPES.has(type)) {
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? String(n) : undefined;
  }
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  return undefined;
}

/** The comparable content of a record: its sent fields and values; undefined when one cannot be compared. */
function contentOf(record: PreparedRecord, types: ReadonlyMap<string, string>): string[] | undefined {
  const names = Object.keys(record).sort();
  const cells: string[] = [];
  for (const name of names) {
    const type = types.get(name);
    if (type === undefined || !COMPARABLE.has(type)) return undefined;
    const v = normalize(type, record[name]);
    if (v === undefined) return undefined;
    cells.push(name, v);
  }
  return cells;
}

const INCOMPARABLE = 'its fields cannot be compared with what Salesforce holds';

const unknownEntry = (objectName: string, why: string): SaveResult =>
  failure(
    'CRM_PROXY_OUTCOME_UNKNOWN',
    `This record was being inserted when the service stopped, and whether Salesforce created it cannot be told (${why}). It was not sent again. Look for it in ${objectName} (created by the connection's user around the job's start) before inserting it again.`,
  );

/**
 * Finds what insert calls interrupted by a crash created: records created by the connection's user
 * since the journaled time, matched by sent content, each once and none `claimed` by the job. Per
 * position: success with the id, `undefined` (not created: send it), or outcome unknown.
 */
export async function reconcileInserts(
  org: Org,
  objectName: string,
  /** Each interrupted insert call: its records, and when it was about to be sent. */
  calls: Array<{ records: PreparedRecord[]; since: string }>,
  claimed: ReadonlySet<string>,
): Promise<Array<Array<SaveResult | undefined>>> {
  const fieldTypes = fieldTypesOf(await knownObject(org, objectName));
  const contents = calls.map((c) => c.records.map((r) => contentOf(r, fieldTypes)));
  // The distinct sets of fields the records were sent with.
  const fieldSets = new Map(
    calls.flatMap((c) => c.records.map((r) => Object.keys(r).sort())).map((n) => [n.join(), n]),
  );
  const allUnknown = (why: string) => calls.map((c) => c.records.map(() => unknownEntry(objectName, why)));
  if (!contents.some((cs) => cs.some((c) => c !== undefined))) return allUnknown(INCOMPARABLE);

  let candidates: CrmRecord[];
  try {
    const userId = await connectionUserId(org);
    const since = Math.min(...calls.map((c) => Date.parse(c.since))) - SKEW_MS;
    const literal = new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const selectable = [...new Set([...fieldSets.values()].flat())].filter(
      (f) => f !== 'Id' && COMPARABLE.has(fieldTypes.get(f) ?? ''),
    );
    const soql = `SELECT Id${selectable.map((f) => `, ${f}`).join('')} FROM ${objectName} WHERE CreatedById = '${userId}' AND CreatedDate >= ${literal} ORDER BY CreatedDate, Id`;
    candidates = (await query(org, soql, Infinity)).records;
  } catch (error) {
    return allUnknown(
      `the records it may have created could not be queried: ${error instanceof Error ? error.message : 'error'}`,
    );
  }

  // Candidates keyed by content for each sent field set: a record compares only on what it sent.
  const byContent = new Map<string, string[]>();
  for (const names of fieldSets.values()) {
    for (const c of candidates) {
      const cells = names.flatMap((name) => [
        name,
        normalize(fieldTypes.get(name) ?? '', c[name]) ?? '\u0001',
      ]);
      const key = JSON.stringify(cells);
      const queue = byContent.get(key);
      if (queue === undefined) byContent.set(key, [String(c['Id'] ?? '')]);
      else queue.push(String(c['Id'] ?? ''));
    }
  }
  const used = new Set(claimed);
  return calls.map((call, k) =>
    call.records.map((_, i) => {
      const cells = contents[k]?.[i];
      if (cells === undefined) return unknownEntry(objectName, INCOMPARABLE);
      const queue = byContent.get(JSON.stringify(cells)) ?? [];
      let id = queue.shift();
      while (id !== undefined && (id === '' || used.has(id))) id = queue.shift();
      if (id === undefined) return undefined;
      used.add(id);
      return { id, success: true, errors: [] };
    }),
  );
}

/** The id of the user the connection acts as (records it creates carry it as CreatedById). */
async function connectionUserId(org: Org): Promise<string> {
  const response = await send(org, 'userinfo', 'userinfo', {
    method: 'GET',
    url: `${org.session.baseUrl}${SALESFORCE_PROFILE.userInfoPath}`,
    headers: { accept: 'application/json' },
    idempotent: true,
  });
  const id = parseJson<{ user_id?: unknown }>(response)?.user_id;
  if (response.status !== 200 || typeof id !== 'string' || !SALESFORCE_PROFILE.idPattern.test(id)) {
    throw new Error(`userinfo answered ${response.status}`);
  }
  return id;
}

/** The field a record can be found by after a lost answer (an external id, an upsert's match field). */
export interface KeyField {
  name: string;
  type: string;
}

const notWritten = (field: string, what: string): SaveResult =>
  failure(
    'CRM_PROXY_NOT_WRITTEN',
    `The ${what} call got no answer, and Salesforce then held no record it could have written with this ${field}: it was not written. Send it again.`,
    [field],
  );

/**
 * A lost write's records looked up by a key field: insert, the one the connection's user created
 * since; upsert, the one holding every value sent; none holding the value, not written. Anything
 * else (several, a shared or unqueryable value, a failed query) is undefined: outcome unknown.
 */
export async function reconcileByKey(
  org: Org,
  objectName: string,
  records: PreparedRecord[],
  /** `since`: epoch ms, from the service's clock, taken before the write was sent. */
  key: KeyField & { since: number },
  /** An upsert's: the types of the object's fields, to compare the record with what was sent. */
  upsert?: ReadonlyMap<string, string>,
): Promise<Array<SaveResult | undefined>> {
  const { name: field, type } = key;
  const mode = upsert === undefined ? 'insert' : 'upsert';
  const fieldTypes = upsert ?? new Map([[field, type]]);
  const fold = (v: unknown) => normalize(type, v)?.toLowerCase();
  const values = records.map((r) => fold(r[field]));
  const counts = new Map<string, number>();
  for (const v of values) if (v !== undefined && v !== '') counts.set(v, (counts.get(v) ?? 0) + 1);
  // Each record's literal, where its value is its own alone in the call and expressible in SOQL.
  const literals = records.map((r, i) => {
    const v = values[i];
    return v !== undefined && counts.get(v) === 1 ? soqlLiteral(r[field], type) : null;
  });
  if (literals.every((l) => l === null)) return records.map(() => undefined);
  // An upsert's record is compared with what was sent: its comparable fields are read too.
  const sent = mode === 'upsert' ? contentOf(records[0] ?? {}, fieldTypes) : undefined;
  const selected = sent === undefined ? [] : Object.keys(records[0] ?? {}).filter((f) => f !== field);
  const held = new Map<string, Array<{ id: string; recent: boolean; same: boolean }>>();
  try {
    const userId = await connectionUserId(org);
    const from = key.since - SKEW_MS;
    const soql = `SELECT Id, ${[field, ...selected].join(', ')}, CreatedDate, CreatedById FROM ${objectName} WHERE ${field} IN (${[...new Set(literals.filter((l) => l !== null))].join(', ')})`;
    for (const c of (await query(org, soql, Infinity)).records) {
      const v = fold(c[field]) ?? '';
      const recent = c['CreatedById'] === userId && Date.parse(String(c['CreatedDate'])) >= from;
      const same =
        sent !== undefined &&
        selected.every(
          (f) =>
            normalize(fieldTypes.get(f) ?? '', c[f]) === normalize(fieldTypes.get(f) ?? '', records[0]?.[f]),
        );
      held.set(v, [...(held.get(v) ?? []), { id: String(c['Id']), recent, same }]);
    }
  } catch {
    return records.map(() => undefined);
  }
  return records.map((_, i) => {
    const v = values[i];
    if (v === undefined || literals[i] === null) return undefined;
    const all = held.get(v) ?? [];
    const found = mode === 'insert' ? all.filter((c) => c.recent) : all;
    if (found.length === 0) return notWritten(field, mode);
    const only = found.length === 1 && (mode === 'insert' || found[0]?.same === true) ? found[0] : undefined;
    return only === undefined ? undefined : { id: only.id, success: true, errors: [] };
  });
}
