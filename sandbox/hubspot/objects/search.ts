import type { FastifyInstance } from 'fastify';
import type { HubSpotContext } from '../context.ts';
import { sendHubSpotError, validationBody } from '../errors.ts';
import type { StoredRecord } from '../model/types.ts';
import { isRecord, typeOrReply } from './http.ts';
import { associationFilterType, matchesAssociation } from './inline-associations.ts';
import { type Filter, matches, matchesQuery, OPERATORS, type Operator, sortValue } from './search-filter.ts';
import { listParam, readNames, toPublicObject } from './view.ts';

/**
 * Limits of `POST /crm/v3/objects/{type}/search` (search guide): 5 filter groups, 6 filters per
 * group, 18 filters in all, `limit` ≤ 200, `query` ≤ 3000 characters, at most 10 000 results per
 * query (paging past them is a 400).
 * https://developers.hubspot.com/docs/api-reference/latest/crm/search-the-crm
 */
export const SEARCH_LIMITS = {
  groups: 5,
  filtersPerGroup: 6,
  filters: 18,
  limit: 200,
  queryChars: 3000,
  results: 10_000,
};

interface ParsedSearch {
  groups: Filter[][];
  query: string | undefined;
  sort: { name: string; descending: boolean } | undefined;
  properties: string[] | undefined;
  limit: number;
  after: number;
}

function parseSort(raw: unknown): { name: string; descending: boolean } | undefined {
  // Only the first sort is honoured; the spec types sorts as strings ("-createdate"), the docs as objects.
  const first = Array.isArray(raw) ? raw[0] : undefined;
  if (typeof first === 'string' && first !== '') {
    return first.startsWith('-')
      ? { name: first.slice(1), descending: true }
      : { name: first, descending: false };
  }
  if (isRecord(first) && typeof first['propertyName'] === 'string') {
    return { name: first['propertyName'], descending: first['direction'] === 'DESCENDING' };
  }
  return undefined;
}

function parseFilter(raw: unknown): Filter | string {
  if (!isRecord(raw) || typeof raw['propertyName'] !== 'string') return 'each filter needs a propertyName';
  const operator = raw['operator'] ?? 'EQ';
  if (typeof operator !== 'string' || !OPERATORS.includes(operator as Operator)) {
    return `Unsupported filter operator: ${String(operator)}`;
  }
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  const f: Filter = { propertyName: raw['propertyName'], operator: operator as Operator };
  const value = str(raw['value']);
  const highValue = str(raw['highValue']);
  if (value !== undefined) f.value = value;
  if (highValue !== undefined) f.highValue = highValue;
  if (Array.isArray(raw['values'])) f.values = raw['values'].map(String);
  return f;
}

function parseSearch(body: Record<string, unknown>): ParsedSearch | string {
  const rawGroups = body['filterGroups'] ?? [];
  if (!Array.isArray(rawGroups)) return 'filterGroups must be an array';
  if (rawGroups.length > SEARCH_LIMITS.groups) {
    return `Too many filter groups: ${rawGroups.length}. The maximum number of filter groups is ${SEARCH_LIMITS.groups}.`;
  }
  const groups: Filter[][] = [];
  let total = 0;
  for (const g of rawGroups) {
    const filters = isRecord(g) && Array.isArray(g['filters']) ? g['filters'] : [];
    if (filters.length > SEARCH_LIMITS.filtersPerGroup) {
      return `Too many filters in a group: ${filters.length}. The maximum number of filters in a filter group is ${SEARCH_LIMITS.filtersPerGroup}.`;
    }
    total += filters.length;
    const parsed: Filter[] = [];
    for (const f of filters) {
      const p = parseFilter(f);
      if (typeof p === 'string') return p;
      parsed.push(p);
    }
    groups.push(parsed);
  }
  if (total > SEARCH_LIMITS.filters) {
    return `Too many filters: ${total}. The maximum number of filters across all filter groups is ${SEARCH_LIMITS.filters}.`;
  }
  const query = typeof body['query'] === 'string' && body['query'] !== '' ? body['query'] : undefined;
  if (query !== undefined && query.length > SEARCH_LIMITS.queryChars) {
    return `query is longer than ${SEARCH_LIMITS.queryChars} characters`;
  }
  const limit = body['limit'] === undefined ? 10 : Number(body['limit']);
  if (!Number.isInteger(limit) || limit < 0 || limit > SEARCH_LIMITS.limit) {
    return `limit must be between 0 and ${SEARCH_LIMITS.limit}; got ${String(body['limit'])}`;
  }
  const after =
    body['after'] === undefined || body['after'] === null || body['after'] === '' ? 0 : Number(body['after']);
  if (!Number.isInteger(after) || after < 0)
    return `after must be a non-negative integer offset; got ${String(body['after'])}`;
  return {
    groups,
    query,
    sort: parseSort(body['sorts']),
    properties: listParam(body['properties']),
    limit,
    after,
  };
}

/**
 * Records worth testing against the filters: when every group has an EQ filter on a text or
 * enumeration property, the union of the index hits (case-insensitive, a superset of the matches);
 * otherwise every live record. Creation order is kept either way.
 */
function candidates(ctx: HubSpotContext, objectTypeId: string, groups: Filter[][]): StoredRecord[] {
  const records = ctx.portal.records;
  if (groups.length === 0) return records.list(objectTypeId);
  const picked = new Map<string, StoredRecord>();
  for (const g of groups) {
    const eq = g.find((f) => {
      if (f.operator !== 'EQ' || f.value === undefined || f.value === '') return false;
      const type = ctx.portal.properties.peek(objectTypeId, f.propertyName)?.type;
      return type === 'string' || type === 'enumeration' || type === 'phone_number';
    });
    if (eq === undefined) return records.list(objectTypeId);
    for (const r of records.matching(objectTypeId, eq.propertyName, eq.value as string)) picked.set(r.id, r);
  }
  return [...picked.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

export function registerSearchRoute(app: FastifyInstance, ctx: HubSpotContext, prefix: string): void {
  app.post<{ Params: { objectType: string }; Body: unknown }>(
    `${prefix}/:objectType/search`,
    { config: { kind: 'objects.search' } },
    async (req, reply) => {
      const type = typeOrReply(ctx, req.params.objectType, reply);
      if (type === undefined) return reply;
      const parsed = parseSearch(isRecord(req.body) ? req.body : {});
      if (typeof parsed === 'string') return sendHubSpotError(reply, 400, validationBody(parsed));
      if (parsed.after >= SEARCH_LIMITS.results) {
        return sendHubSpotError(
          reply,
          400,
          validationBody(
            `Search results are limited to ${SEARCH_LIMITS.results} per query; after=${parsed.after} is past that limit. Narrow the filters instead.`,
          ),
        );
      }
      const defs = (name: string) => ctx.portal.properties.peek(type.objectTypeId, name);
      for (const f of parsed.groups.flat()) {
        if (f.propertyName === 'id') continue;
        if (f.propertyName.startsWith('associations.')) {
          if (associationFilterType(ctx, f.propertyName) !== undefined) continue;
          const message = `There was a problem with the request: ${f.propertyName} names no object type; use associations.<type>, e.g. associations.contact.`;
          return sendHubSpotError(reply, 400, validationBody(message));
        }
        const def = defs(f.propertyName);
        if (def === undefined || def.archived === true) {
          return sendHubSpotError(
            reply,
            400,
            validationBody(`There was a problem with the request: property ${f.propertyName} does not exist`),
          );
        }
      }
      let hits: StoredRecord[] = candidates(ctx, type.objectTypeId, parsed.groups);
      if (parsed.groups.length > 0) {
        // Groups are OR-ed, filters inside a group AND-ed; `associations.<type>` matches associated record ids.
        hits = hits.filter((r) =>
          parsed.groups.some((g) =>
            g.every((f) =>
              f.propertyName.startsWith('associations.')
                ? matchesAssociation(ctx, type, r.id, f)
                : matches(r, f, defs(f.propertyName)),
            ),
          ),
        );
      }
      const query = parsed.query;
      if (query !== undefined) hits = hits.filter((r) => matchesQuery(r, query, type.queryProperties));
      const sort = parsed.sort;
      if (sort !== undefined) {
        const def = defs(sort.name);
        const dir = sort.descending ? -1 : 1;
        hits = [...hits].sort((a, b) => {
          const va = sortValue(a, sort.name, def);
          const vb = sortValue(b, sort.name, def);
          if (va === undefined || vb === undefined) return va === vb ? 0 : va === undefined ? 1 : -1;
          return (va < vb ? -1 : va > vb ? 1 : 0) * dir || Number(a.id) - Number(b.id);
        });
      }
      const total = hits.length;
      const end = Math.min(parsed.after + parsed.limit, SEARCH_LIMITS.results, total);
      const names = readNames(ctx.portal, type, parsed.properties);
      const results = hits.slice(parsed.after, end).map((r) => toPublicObject(r, names));
      const body: Record<string, unknown> = { total, results };
      if (end < total && end < SEARCH_LIMITS.results) body['paging'] = { next: { after: String(end) } };
      return body;
    },
  );
}
