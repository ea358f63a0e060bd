import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { explainQuery, type QueryRecord, queryColumns } from '../query/execute.ts';
import { sendErrors, sendJson, sendKernelError, versionOf } from './common.ts';
import { findListView, listViewQuery } from './listviews.ts';
import { userOf } from './sobjects.ts';

/** Default and largest page; `Sforce-Query-Options: batchSize=N` asks for 200 … 2000. */
export const DEFAULT_BATCH = 2000;
/** The most rows one batch holds, and all an aggregate query may answer. */
const MAX_BATCH = 2000;
const MIN_BATCH = 200;
/** Rows of one child subquery sent with its parent; the rest page through the child's own nextRecordsUrl. */
const CHILD_BATCH = 200;
/** Open cursors kept; the oldest is dropped beyond this (Salesforce also limits open cursors per user). */
const MAX_CURSORS = 200;

interface Cursor {
  records: QueryRecord[];
  batch: number;
}

function batchSizeOf(request: FastifyRequest): number {
  const header = request.headers['sforce-query-options'];
  const m = typeof header === 'string' ? /batchSize\s*=\s*(\d+)/i.exec(header) : null;
  if (m === null) return DEFAULT_BATCH;
  return Math.min(DEFAULT_BATCH, Math.max(MIN_BATCH, Number(m[1])));
}

/** Query cursors (`nextRecordsUrl` = `/services/data/vXX.X/query/01g…-2000`) of one sandbox. */
export class Cursors {
  #open = new Map<string, Cursor>();
  #n = 0;

  open(records: QueryRecord[], batch: number): string {
    this.#n += 1;
    const id = `01g4S00000${String(this.#n).padStart(5, '0')}AAA`.slice(0, 18);
    this.#open.set(id, { records, batch });
    if (this.#open.size > MAX_CURSORS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    return id;
  }

  get(id: string): Cursor | undefined {
    return this.#open.get(id);
  }

  close(id: string): void {
    this.#open.delete(id);
  }

  reset(): void {
    this.#open.clear();
    this.#n = 0;
  }
}

function page(
  cursors: Cursors,
  version: string,
  locator: string | null,
  records: QueryRecord[],
  totalSize: number,
  offset: number,
  batch: number,
) {
  const end = offset + batch;
  const done = end >= records.length;
  let id = locator;
  if (!done && id === null) id = cursors.open(records, batch);
  if (done && id !== null) cursors.close(id);
  return {
    totalSize,
    done,
    ...(done ? {} : { nextRecordsUrl: `/services/data/v${version}/query/${id}-${end}` }),
    records: records.slice(offset, end).map((r) => pageChildren(cursors, version, r)),
  };
}

type ChildSet = { totalSize: number; done: boolean; records: QueryRecord[] };
const isChildSet = (v: unknown): v is ChildSet =>
  typeof v === 'object' && v !== null && Array.isArray((v as ChildSet).records) && 'done' in v;

/** A parent row whose subquery result exceeds one child page gets that page and a cursor for the rest. */
function pageChildren(cursors: Cursors, version: string, rec: QueryRecord): QueryRecord {
  let out = rec;
  for (const [key, value] of Object.entries(rec)) {
    if (!isChildSet(value) || value.records.length <= CHILD_BATCH) continue;
    if (out === rec) out = { ...rec };
    out[key] = page(cursors, version, null, value.records, value.totalSize, 0, CHILD_BATCH);
  }
  return out;
}

export function registerQueryRoutes(app: FastifyInstance, ctx: SalesforceContext): Cursors {
  const cursors = new Cursors();
  ctx.onReset(() => cursors.reset());

  const run = (includeDeleted: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const params = request.query as { q?: unknown; explain?: unknown; columns?: unknown };
    const user = userOf(ctx, request);
    if (typeof params.explain === 'string') {
      // A query, or a list view's id (report ids are not emulated).
      const view = /^00B\w{12}(\w{3})?$/.test(params.explain) ? findListView(ctx, params.explain) : undefined;
      const soql =
        view === undefined
          ? params.explain
          : listViewQuery(
              view,
              user,
              ctx.org.recentlyViewed(user, view.meta.name).map((r) => String(r.record.Id)),
            );
      try {
        return sendJson(reply, 200, explainQuery(ctx.org, soql, version));
      } catch (e) {
        return sendKernelError(reply, e);
      }
    }
    const q = params.q;
    if (typeof q !== 'string' || q.trim() === '') {
      return sendErrors(reply, 400, [
        { message: 'A query string has to be specified', errorCode: 'MALFORMED_QUERY' },
      ]);
    }
    try {
      if (params.columns === 'true') return sendJson(reply, 200, queryColumns(ctx.org, q, version));
      const result = ctx.org.query(q, {
        includeDeleted,
        version,
        onView: (ids) => ctx.org.markViewed(user, ids),
      });
      if (result.aggregate === true) {
        // The SOQL guide ("Considerations When Using GROUP BY"): an aggregate query cannot use
        // queryMore; its rows come in one batch of at most 2,000, whatever batch size was asked
        // for, and a query with more must filter down to smaller chunks.
        if (result.records.length > MAX_BATCH) {
          return sendErrors(reply, 400, [
            {
              message:
                'Aggregate query does not support queryMore(), use LIMIT to restrict the results to a single batch',
              errorCode: 'MALFORMED_QUERY',
            },
          ]);
        }
        return sendJson(reply, 200, { totalSize: result.totalSize, done: true, records: result.records });
      }
      return sendJson(
        reply,
        200,
        page(cursors, version, null, result.records, result.totalSize, 0, batchSizeOf(request)),
      );
    } catch (e) {
      return sendKernelError(reply, e);
    }
  };
  app.get('/services/data/:version/query', { config: { kind: 'rest.query' } }, run(false));
  app.get('/services/data/:version/query/', { config: { kind: 'rest.query' } }, run(false));
  app.get('/services/data/:version/queryAll', { config: { kind: 'rest.queryAll' } }, run(true));
  app.get('/services/data/:version/queryAll/', { config: { kind: 'rest.queryAll' } }, run(true));

  const more = async (request: FastifyRequest, reply: FastifyReply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const locator = (request.params as { locator: string }).locator;
    const dash = locator.lastIndexOf('-');
    const id = dash < 0 ? locator : locator.slice(0, dash);
    const offset = dash < 0 ? 0 : Number(locator.slice(dash + 1));
    const cursor = cursors.get(id);
    if (cursor === undefined || !Number.isInteger(offset) || offset < 0) {
      return sendErrors(reply, 400, [
        { message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' },
      ]);
    }
    return sendJson(
      reply,
      200,
      page(cursors, version, id, cursor.records, cursor.records.length, offset, cursor.batch),
    );
  };
  app.get('/services/data/:version/query/:locator', { config: { kind: 'rest.queryMore' } }, more);
  app.get('/services/data/:version/queryAll/:locator', { config: { kind: 'rest.queryMore' } }, more);
  return cursors;
}
