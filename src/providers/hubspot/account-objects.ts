import type { QueryPage, SaveResult, WriteAnswer } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { SearchRequest } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { HubSpotApi } from './connection-state.ts';
import { fail, failed, written } from './write-results.ts';

/** The account's own objects (owners, pipelines, stages), read through get and query in HubSpot's shapes. */
type Kind = { kind: 'owners' } | { kind: 'pipelines' | 'stages'; objectType: 'deals' | 'tickets' };

// A Map: a name the client chose (`constructor`, `__proto__`) must not find Object.prototype's members.
const NAMES = new Map<string, Kind>([
  ['owners', { kind: 'owners' }],
  ['owner', { kind: 'owners' }],
  ['deal_pipelines', { kind: 'pipelines', objectType: 'deals' }],
  ['ticket_pipelines', { kind: 'pipelines', objectType: 'tickets' }],
  ['deal_stages', { kind: 'stages', objectType: 'deals' }],
  ['ticket_stages', { kind: 'stages', objectType: 'tickets' }],
]);

export const ACCOUNT_OBJECT_NAMES: readonly string[] = [...NAMES.keys()];

/** Each kind's operations, and the properties query filters on (EQ). */
export const OFFERED: Record<Kind['kind'], { operations: string[]; filters: string[] }> = {
  owners: { operations: ['get', 'query'], filters: ['email', 'archived'] },
  pipelines: { operations: ['get', 'query', 'insert', 'update'], filters: ['archived'] },
  stages: { operations: ['get', 'query', 'insert'], filters: ['pipelineId', 'archived'] },
};

/** Names that do not say whose pipelines. */
const AMBIGUOUS = new Set(['pipelines', 'pipeline', 'stages', 'stage', 'pipeline_stages']);

/** The account object a name means; undefined for record types. */
export function accountObject(name: string): Kind | undefined {
  const key = name.toLowerCase();
  if (AMBIGUOUS.has(key)) {
    throw new ApiError(
      'unknown_object',
      `HubSpot pipelines belong to an object type: use deal_pipelines or ticket_pipelines (their stages: deal_stages, ticket_stages).`,
      {
        details: [
          { object_name: name, use: ['deal_pipelines', 'ticket_pipelines', 'deal_stages', 'ticket_stages'] },
        ],
      },
    );
  }
  return NAMES.get(key);
}

type Row = Record<string, unknown>;

/** Every owner, live or archived, through the list's pages (500 each). */
async function owners(api: HubSpotApi, archived: boolean): Promise<Row[]> {
  const out: Row[] = [];
  let after: string | undefined;
  for (let page = 0; page < 200; page++) {
    const q = new URLSearchParams({ limit: '500', archived: String(archived) });
    if (after !== undefined) q.set('after', after);
    const body = await api.get<{ results?: Row[]; paging?: { next?: { after?: string } } }>(
      `/crm/v3/owners?${q.toString()}`,
      'hubspot.owners.list',
      'listing owners',
    );
    out.push(...(body?.results ?? []));
    after = body?.paging?.next?.after;
    if (after === undefined) break;
  }
  return out;
}

/** Owners, pipelines, or the stages of every pipeline, each naming its pipeline. */
async function rows(api: HubSpotApi, kind: Kind, archivedOwners: boolean | 'both'): Promise<Row[]> {
  if (kind.kind === 'owners') {
    if (archivedOwners !== 'both') return owners(api, archivedOwners);
    return [...(await owners(api, false)), ...(await owners(api, true))];
  }
  const { objectType } = kind;
  const path = `/crm/v3/pipelines/${objectType}`;
  const what = `listing ${objectType} pipelines`;
  const list = (await api.get<{ results?: Row[] }>(path, 'hubspot.pipelines.list', what))?.results ?? [];
  if (kind.kind === 'pipelines') return list;
  return list.flatMap((p) =>
    (Array.isArray(p['stages']) ? (p['stages'] as Row[]) : []).map((s) => ({ ...s, pipelineId: p['id'] })),
  );
}

/** get: one entry per id, in order, `null` where there is none (archived owners too). */
export async function getAccountObjects(
  api: HubSpotApi,
  kind: Kind,
  ids: string[],
): Promise<{ data: Array<Row | null> }> {
  // The first row of an id wins (a live owner before an archived one).
  const byId = new Map((await rows(api, kind, 'both')).toReversed().map((r) => [String(r['id']), r]));
  return { data: ids.map((id) => byId.get(id) ?? null) };
}

/** query: every row in one answer (short lists: `limit` does not apply), filtered by OFFERED's filters. */
export async function queryAccountObjects(
  api: HubSpotApi,
  kind: Kind,
  request: SearchRequest,
): Promise<QueryPage> {
  const allowed = OFFERED[kind.kind].filters;
  const groups = request.filterGroups ?? [];
  const filters = groups.flatMap((g) => g.filters);
  const bad = filters.find((f) => !allowed.includes(f.propertyName) || f.operator !== 'EQ');
  if (groups.length > 1 || bad !== undefined || request.sorts !== undefined || request.query !== undefined) {
    throw new ApiError(
      'invalid_query',
      `HubSpot ${kind.kind} are listed whole; they can be filtered only with one filter group of EQ filters on ${allowed.join(', ')} (no sorts, no text query).`,
      { details: [{ path: '/data', allowed_filters: allowed }] },
    );
  }
  const wanted = new Map(filters.map((f) => [f.propertyName, String(f.value ?? '')]));
  const archived = wanted.get('archived')?.toLowerCase() === 'true';
  let list = await rows(api, kind, kind.kind === 'owners' ? archived : false);
  list = list.filter((r) =>
    [...wanted].every(([name, value]) =>
      name === 'email'
        ? String(r['email'] ?? '').toLowerCase() === value.toLowerCase()
        : String((Object.hasOwn(r, name) ? r[name] : undefined) ?? (name === 'archived' ? false : '')) ===
          value,
    ),
  );
  return { totalSize: list.length, done: true, records: list, next_cursor: null };
}

/** Pipeline writes, one call per record (no batch endpoints); HubSpot's refusal lands on the record. */
export async function writePipelines(
  api: HubSpotApi,
  kind: Kind,
  records: unknown[],
  mode: 'insert' | 'update',
): Promise<WriteAnswer> {
  if (kind.kind === 'owners' || !OFFERED[kind.kind].operations.includes(mode)) {
    throw new ApiError(
      'object_not_supported',
      kind.kind === 'owners'
        ? 'HubSpot owners are users of the account: they are read, not written, through the API.'
        : 'Stages are changed through their pipeline in HubSpot; this service creates stages (insert) but does not update them.',
      { details: [{ object_name: kind.kind, operation: mode }] },
    );
  }
  const base = `/crm/v3/pipelines/${kind.objectType}`;
  const data = await Promise.all(
    records.map(async (raw, index): Promise<SaveResult> => {
      const { id, pipelineId, ...body } = isRecord(raw) ? raw : {};
      let path = base;
      if (mode === 'update') path = `${base}/${encodeURIComponent(String(id ?? ''))}`;
      else if (kind.kind === 'stages') {
        if (typeof pipelineId !== 'string' || pipelineId === '') {
          const message = `record ${index}: a stage needs its pipelineId.`;
          return failed(undefined, [fail('REQUIRED_FIELD', message, ['pipelineId'])]);
        }
        path = `${base}/${encodeURIComponent(pipelineId)}/stages`;
      }
      const response = await api.send({
        method: mode === 'update' ? 'PATCH' : 'POST',
        path,
        body,
        idempotent: mode === 'update',
        label: `hubspot.pipelines.${mode}`,
      });
      const answer = parseJson<Row>(response) ?? {};
      if (response.status === 200 || response.status === 201) return written(String(answer['id']));
      if (response.status >= 500)
        throw crmErrorFromResponse('hubspot', response, `writing ${kind.objectType} ${kind.kind}`);
      const error = fail(
        String(answer['category'] ?? `HTTP_${response.status}`),
        String(answer['message'] ?? response.text.slice(0, 300)),
      );
      return failed(mode === 'update' ? String(id) : undefined, [error]);
    }),
  );
  return { data };
}
