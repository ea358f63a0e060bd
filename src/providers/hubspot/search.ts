import type { QueryPage } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import type { Handler, HandlerCall, SearchRequest } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { signCursor, verifyCursor } from '../cursor.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { accountObject, queryAccountObjects } from './account-objects.ts';
import type { PerConnectionState } from './connection-state.ts';
import { checkedProperties, type ObjectRef, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

const LIMITS = HUBSPOT_PROFILE.search;

interface CursorPayload {
  /** Connection the cursor belongs to. */
  c: string;
  /** Object type path. */
  o: string;
  /** The search as sent (without paging). */
  q: Record<string, unknown>;
  /** HubSpot's `after` of the next page. */
  a: string;
  /** Records per answer. */
  n: number;
}

interface SearchAnswer {
  total?: number;
  results?: Array<Record<string, unknown>>;
  paging?: { next?: { after?: string } };
}

/** Every property name the search uses exists (400 with hints otherwise), so HubSpot is not asked in vain. */
async function checkNames(
  hs: PerConnectionState,
  call: HandlerCall,
  object: ObjectRef,
  request: SearchRequest,
): Promise<void> {
  const used: Array<[string, string]> = [];
  for (const [i, g] of (request.filterGroups ?? []).entries()) {
    for (const [j, f] of g.filters.entries()) {
      used.push([f.propertyName, `/data/filterGroups/${i}/filters/${j}/propertyName`]);
    }
  }
  for (const [i, sort] of (request.sorts ?? []).entries()) {
    used.push([typeof sort === 'string' ? sort.replace(/^-/, '') : sort.propertyName, `/data/sorts/${i}`]);
  }
  for (const [i, p] of (request.properties ?? []).entries()) used.push([p, `/data/properties/${i}`]);
  const named = used.filter(([name]) => name !== 'id');
  if (named.length > 0) await checkedProperties(hs, call.session, object, named, '.');
}

/** One page of HubSpot's search, under the search pacer. A 400 is the client's query: 400 invalid_query. */
async function page(
  hs: PerConnectionState,
  call: HandlerCall,
  path: string,
  query: Record<string, unknown>,
  after: string,
  limit: number,
) {
  const response = await hs.send(call, {
    method: 'POST',
    path: `/crm/v3/objects/${encodeURIComponent(path)}/search`,
    body: { ...query, limit, ...(after === '' ? {} : { after }) },
    idempotent: true,
    kind: 'search',
    label: 'hubspot.objects.search',
  });
  if (response.status === 400) {
    const body = parseJson<{ message?: string }>(response);
    throw new ApiError(
      'invalid_query',
      `HubSpot refused the search: ${String(body?.message ?? response.text.slice(0, 300))}`,
      {
        details: [{ provider: 'hubspot', status: 400, crm_error: body ?? response.text.slice(0, 500) }],
      },
    );
  }
  if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, 'searching');
  return parseJson<SearchAnswer>(response) ?? {};
}

async function run(
  hs: PerConnectionState,
  key: Buffer,
  call: HandlerCall,
  payload: CursorPayload,
): Promise<QueryPage> {
  const records: Array<Record<string, unknown>> = [];
  let after = payload.a;
  let total = 0;
  let more = true;
  while (records.length < payload.n) {
    const position = after === '' ? 0 : Number(after);
    const size = Math.min(LIMITS.pageSize, payload.n - records.length, LIMITS.maxResults - position);
    if (size <= 0) {
      more = false;
      break;
    }
    const answer = await page(hs, call, payload.o, payload.q, after, size);
    total = answer.total ?? total;
    records.push(...(answer.results ?? []));
    const next = answer.paging?.next?.after;
    if (next === undefined || (answer.results ?? []).length === 0) {
      more = false;
      break;
    }
    after = next;
  }
  const reachable = more && Number(after) < LIMITS.maxResults;
  return {
    totalSize: total,
    done: !reachable,
    records,
    next_cursor: reachable ? signCursor(key, { ...payload, a: after }) : null,
  };
}

/**
 * CRM search (`POST /crm/v3/objects/{type}/search`): filter groups, sorts, properties and a text
 * query as HubSpot takes them. The service follows HubSpot's pages of 200, each paced under
 * search's own 5-per-second limit, up to `limit` records per answer (default 2 000); `next_cursor`
 * (HubSpot's paging position, bound to the connection and signed with HMAC-SHA256) continues, up to
 * the 10 000 results HubSpot lets one search reach. The account's own objects (owners, pipelines,
 * stages) are listed and filtered here.
 */
export function hubspotSearch(hs: PerConnectionState, key: Buffer): Handler<'search'> {
  return async (call, input) => {
    if ('cursor' in input) {
      return run(hs, key, call, verifyCursor<CursorPayload>(key, input.cursor, call.session.connectionId));
    }
    const account = accountObject(input.objectName);
    if (account !== undefined) return queryAccountObjects(hs, call.session, account, input.request);
    const object = await resolveObject(hs, call.session, input.objectName);
    const { limit, ...request } = input.request;
    await checkNames(hs, call, object, request);
    return run(hs, key, call, {
      c: call.session.connectionId,
      o: object.path,
      q: request as Record<string, unknown>,
      a: '',
      n: limit ?? LIMITS.defaultPerAnswer,
    });
  };
}
