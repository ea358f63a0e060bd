import type { QueryPage } from '../../domain/operations.ts';
import { ApiError, type UnknownField, unknownFields } from '../../errors/index.ts';
import { hinter } from '../../lib/closest.ts';
import type { HandlerCall, SearchRequest } from '../adapter.ts';
import { parseJson } from '../client/types.ts';
import { crmErrorFromResponse } from '../errors.ts';
import type { PerConnectionState } from './connection-state.ts';
import { signedCursors } from './cursor.ts';
import { type ObjectRef, propertyInfos, resolveObject } from './objects.ts';
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

/**
 * CRM search (`POST /crm/v3/objects/{type}/search`): filter groups, sorts, properties and a text
 * query as HubSpot takes them. The service follows HubSpot's pages of 200, each paced under
 * search's own 5-per-second limit, up to `limit` records per answer (default 2 000); `next_cursor`
 * (HubSpot's paging position, bound to the connection and signed with HMAC-SHA256) continues, up to
 * the 10 000 results HubSpot lets one search reach.
 */
export function hubspotSearch(hs: PerConnectionState, key: Buffer) {
  const { sign, verify } = signedCursors<CursorPayload>(key);

  /** Every property name the search uses exists (400 with hints otherwise), so HubSpot is not asked in vain. */
  async function checkNames(call: HandlerCall, object: ObjectRef, request: SearchRequest): Promise<void> {
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
    if (used.length === 0) return;
    const known = (list: string[]) => new Set(list.map((n) => n.toLowerCase()));
    let names = (await propertyInfos(hs, call.session, object)).map((p) => p.name);
    const missing = () => used.filter(([n]) => n !== 'id' && !known(names).has(n.toLowerCase()));
    if (missing().length > 0)
      names = (await propertyInfos(hs, call.session, object, { refresh: true })).map((p) => p.name);
    const hint = hinter(names);
    const unknown: UnknownField[] = missing().map(([field, path]) => ({
      path,
      field,
      did_you_mean: hint(field),
    }));
    if (unknown.length > 0) {
      throw unknownFields(`HubSpot ${object.name} have no property`, unknown, '.');
    }
  }

  /** One page of HubSpot's search, under the search pacer. A 400 is the client's query: 400 invalid_query. */
  async function page(
    call: HandlerCall,
    path: string,
    query: Record<string, unknown>,
    after: string,
    limit: number,
  ) {
    const response = await call.limiter.run(() =>
      hs.call(call.session, {
        method: 'POST',
        path: `/crm/v3/objects/${encodeURIComponent(path)}/search`,
        body: { ...query, limit, ...(after === '' ? {} : { after }) },
        idempotent: true,
        kind: 'search',
        label: 'hubspot.objects.search',
      }),
    );
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

  async function run(call: HandlerCall, payload: CursorPayload): Promise<QueryPage> {
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
      const answer = await page(call, payload.o, payload.q, after, size);
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
      next_cursor: reachable ? sign({ ...payload, a: after }) : null,
    };
  }

  return async (
    call: HandlerCall,
    input: { objectName: string; request: SearchRequest } | { cursor: string },
  ) => {
    if ('cursor' in input) return run(call, verify(input.cursor, call.session.connectionId));
    const object = await resolveObject(hs, call.session, input.objectName);
    const { limit, ...request } = input.request;
    await checkNames(call, object, request);
    return run(call, {
      c: call.session.connectionId,
      o: object.path,
      q: request as Record<string, unknown>,
      a: '',
      n: limit ?? LIMITS.defaultPerAnswer,
    });
  };
}
