import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { formatDateTime, type ObjectMeta, type SRecord } from '../org/index.ts';
import { toMs } from '../query/dates.ts';
import { type ApiError, sendErrors, sendJson, versionOf } from './common.ts';
import { objectOf, userOf } from './sobjects.ts';

/** Largest `recent` answer, and its default size. */
const MAX_RECENT = 200;
/** Replication answers cover at most the last 30 days, as Salesforce's. */
const WINDOW_MS = 30 * 24 * 3600 * 1000;
const MINUTE = 60_000;

/** A recently viewed record as `recent` and an object's `recentItems` list it: type, url, Id, name field. */
export function recentItem(meta: ObjectMeta, rec: SRecord, version: string) {
  const name = meta.fields.find((f) => f.nameField);
  return {
    attributes: {
      type: meta.name,
      url: `/services/data/v${version}/sobjects/${meta.name}/${String(rec.Id)}`,
    },
    Id: rec.Id,
    ...(name === undefined ? {} : { [name.name]: rec[name.name] ?? null }),
  };
}

const replicationError = (message: string): ApiError[] => [
  { errorCode: 'INVALID_REPLICATION_DATE', message },
];

/** `start`/`end` as Salesforce reads them: ISO 8601, seconds dropped (12:30:15 → 12:30:00 UTC). */
function windowOf(
  query: { start?: unknown; end?: unknown },
  now: number,
): { start: number; end: number; covered: number } | ApiError[] {
  const parse = (v: unknown): number => {
    if (typeof v !== 'string' || v.trim() === '') return Number.NaN;
    const iso = v.trim().replace(' ', '+');
    const ms = /^\d{4}-\d{2}-\d{2}T/.test(iso)
      ? Date.parse(iso.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
      : Number.NaN;
    return Number.isNaN(ms) ? Number.NaN : Math.floor(ms / MINUTE) * MINUTE;
  };
  if (query.start === undefined || query.end === undefined) {
    return [
      {
        errorCode: 'MISSING_ARGUMENT',
        message: `${query.start === undefined ? 'start' : 'end'} parameter is required`,
      },
    ];
  }
  const start = parse(query.start);
  const end = parse(query.end);
  if (Number.isNaN(start) || Number.isNaN(end)) {
    return [
      {
        errorCode: 'INVALID_REPLICATION_DATE',
        message: `Invalid date/time: ${Number.isNaN(start) ? String(query.start) : String(query.end)} (expected ISO 8601, e.g. 2024-05-01T10:00:00+00:00)`,
      },
    ];
  }
  if (start >= end) return replicationError('startDate must chronologically precede endDate');
  if (start < Math.floor((now - WINDOW_MS) / MINUTE) * MINUTE) {
    return replicationError('startDate cannot be more than 30 days ago');
  }
  // Changes up to `end` are listed; the answer covers no later than the current minute.
  return { start, end, covered: Math.min(end, Math.floor(now / MINUTE) * MINUTE) };
}

type Params = { version: string; sobject: string };
type Window = { start?: string; end?: string };

export function registerRecentRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  app.get<{ Params: { version: string }; Querystring: { limit?: string } }>(
    '/services/data/:version/recent',
    { config: { kind: 'rest.recent' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const raw = request.query.limit;
      const limit = raw === undefined ? MAX_RECENT : Number(raw);
      if (!Number.isInteger(limit) || limit < 1) {
        return sendErrors(reply, 400, [
          {
            errorCode: 'INVALID_QUERY_FILTER_OPERATOR',
            message: `limit must be a positive integer, got '${String(raw)}'`,
          },
        ]);
      }
      const items = ctx.org
        .recentlyViewed(userOf(ctx, request))
        .slice(0, Math.min(limit, MAX_RECENT))
        .map(({ object, record }) => recentItem(ctx.org.object(object) as ObjectMeta, record, version));
      return sendJson(reply, 200, items);
    },
  );

  app.get<{ Params: Params; Querystring: Window }>(
    '/services/data/:version/sobjects/:sobject/updated',
    { config: { kind: 'rest.updated' } },
    async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const w = windowOf(request.query, Date.now());
      if (Array.isArray(w)) return sendErrors(reply, 400, w);
      // SystemModstamp is the change date, as in Salesforce; a deleted record is no longer "updated".
      const ids: string[] = [];
      for (const rec of ctx.org.table(meta).rows.values()) {
        if (rec.IsDeleted === true) continue;
        const at = toMs(String(rec.SystemModstamp ?? rec.LastModifiedDate ?? ''));
        if (at >= w.start && at < w.end) ids.push(String(rec.Id));
      }
      return sendJson(reply, 200, { ids, latestDateCovered: formatDateTime(new Date(w.covered)) });
    },
  );

  app.get<{ Params: Params; Querystring: Window }>(
    '/services/data/:version/sobjects/:sobject/deleted',
    { config: { kind: 'rest.deleted' } },
    async (request, reply) => {
      if (versionOf(request, reply) === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const now = Date.now();
      const w = windowOf(request.query, now);
      if (Array.isArray(w)) return sendErrors(reply, 400, w);
      // A record's deletion stamps its SystemModstamp (org/dml.ts): that is its deletedDate.
      const deletedRecords: Array<{ id: string; deletedDate: string }> = [];
      let earliest = Number.POSITIVE_INFINITY;
      for (const rec of ctx.org.table(meta).rows.values()) {
        if (rec.IsDeleted !== true) continue;
        const at = toMs(String(rec.SystemModstamp ?? ''));
        if (at < now - WINDOW_MS) continue;
        earliest = Math.min(earliest, at);
        if (at >= w.start && at < w.end)
          deletedRecords.push({ id: String(rec.Id), deletedDate: formatDateTime(new Date(at)) });
      }
      return sendJson(reply, 200, {
        deletedRecords,
        earliestDateAvailable: formatDateTime(
          new Date(Number.isFinite(earliest) ? Math.floor(earliest / MINUTE) * MINUTE : w.start),
        ),
        latestDateCovered: formatDateTime(new Date(w.covered)),
      });
    },
  );
}
