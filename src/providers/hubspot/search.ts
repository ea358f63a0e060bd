import type { QueryPage } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import type { Handler, SearchRequest } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { signCursor, verifyCursor } from '../cursor.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { accountObject, queryAccountObjects } from './account-objects.ts';
import type { HubSpotApi, PerConnectionState } from './connection-state.ts';
import { checkedProperties, type ObjectRef, resolveObject } from './objects.ts';
import { HUBSPOT_PROFILE } from './profile.ts';

const LIMITS = HUBSPOT_PROFILE.search;

/** A signed cursor: its connection, HubSpot's `after` of the next page, records per answer. */
export interface PageCursor {
  c: string;
  a: string;
  n: number;
}

/** Also the object type path and the search as sent. */
type SearchCursor = PageCursor & { o: string; q: Record<string, unknown> };

interface PageAnswer {
  total?: number;
  results?: Array<Record<string, unknown>>;
  paging?: { next?: { after?: string } };
}

/** HubSpot's `after` pages up to `n` records, not past `maxResults` (`after` is then a position). */
export async function readPages<C extends PageCursor>(
  key: Buffer,
  cursor: C,
  limits: { pageSize: number; maxResults?: number },
  page: (after: string, limit: number) => Promise<PageAnswer>,
): Promise<QueryPage> {
  const { maxResults } = limits;
  const room = (after: string) =>
    maxResults === undefined ? Number.POSITIVE_INFINITY : maxResults - (after === '' ? 0 : Number(after));
  const records: Array<Record<string, unknown>> = [];
  let after = cursor.a;
  let total = 0;
  let more = true;
  while (more && records.length < cursor.n) {
    const size = Math.min(limits.pageSize, cursor.n - records.length, room(after));
    if (size <= 0) break;
    const answer = await page(after, size);
    total = answer.total ?? total;
    const results = answer.results ?? [];
    records.push(...results);
    const next = answer.paging?.next?.after;
    more = next !== undefined && results.length > 0;
    if (next !== undefined) after = next;
  }
  more &&= room(after) > 0;
  return {
    totalSize: total,
    done: !more,
    records,
    next_cursor: more ? signCursor(key, { ...cursor, a: after }) : null,
  };
}

/** Every property name the search uses exists (400 with hints otherwise). */
async function checkNames(api: HubSpotApi, object: ObjectRef, request: SearchRequest): Promise<void> {
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
  if (named.length > 0) await checkedProperties(api, object, named, '.');
}

/** CRM search as HubSpot takes it, paged up to `limit` records per answer; account objects filtered here. */
export function hubspotSearch(hs: PerConnectionState, key: Buffer): Handler<'search'> {
  // A 400 is the client's query.
  const run = (api: HubSpotApi, cursor: SearchCursor) =>
    readPages(key, cursor, LIMITS, async (after, limit) => {
      const response = await api.send({
        method: 'POST',
        path: `/crm/v3/objects/${encodeURIComponent(cursor.o)}/search`,
        body: { ...cursor.q, limit, ...(after === '' ? {} : { after }) },
        idempotent: true,
        kind: 'search',
        label: 'hubspot.objects.search',
      });
      if (response.status === 400) {
        const body = parseJson<{ message?: string }>(response);
        throw new ApiError(
          'invalid_query',
          `HubSpot refused the search: ${String(body?.message ?? response.text.slice(0, 300))}`,
          { details: [{ provider: 'hubspot', status: 400, crm_error: body ?? response.text.slice(0, 500) }] },
        );
      }
      if (response.status !== 200) throw crmErrorFromResponse('hubspot', response, 'searching');
      return parseJson(response) ?? {};
    });
  return async (call, input) => {
    const api = hs.at(call);
    if ('cursor' in input) return run(api, verifyCursor(key, input.cursor, call.session.connectionId));
    const account = accountObject(input.objectName);
    if (account !== undefined) return queryAccountObjects(api, account, input.request);
    const object = await resolveObject(api, input.objectName);
    const { limit, ...request } = input.request;
    await checkNames(api, object, request);
    return run(api, {
      c: call.session.connectionId,
      o: object.path,
      q: request as Record<string, unknown>,
      a: '',
      n: limit ?? LIMITS.defaultPerAnswer,
    });
  };
}
