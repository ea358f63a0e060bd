import type { FastifyInstance } from 'fastify';
import type { SalesforceContext } from '../context.ts';
import { type ObjectMeta, toId18 } from '../org/index.ts';
import type { FieldDescribe } from '../org/types.ts';
import { NOT_FOUND, sendErrors, sendJson, sendKernelError, versionOf } from './common.ts';
import { objectOf, userOf } from './sobjects.ts';

/**
 * List views generated from each object's describe, as a fresh org has them: "All …" and "My …"
 * (owned by the caller) for objects with an owner, "Recently Viewed …" for all. Their columns are
 * the object's name field and its first few listable fields; each view is a SOQL query, so results
 * and `explain` run on the real data.
 */
export interface ListView {
  id: string;
  developerName: string;
  label: string;
  meta: ObjectMeta;
  scope: 'everything' | 'mine' | 'recent';
  columns: FieldDescribe[];
}

const LISTABLE = new Set([
  'string',
  'email',
  'phone',
  'picklist',
  'url',
  'currency',
  'date',
  'datetime',
  'boolean',
  'double',
  'int',
  'percent',
  'reference',
]);

function columnsOf(meta: ObjectMeta): FieldDescribe[] {
  const name = meta.fields.find((f) => f.nameField);
  const rest = meta.fields.filter(
    (f) =>
      f !== name &&
      !f.deprecatedAndHidden &&
      LISTABLE.has(f.type) &&
      f.type !== 'id' &&
      !f.name.endsWith('Id') &&
      f.name !== 'IsDeleted' &&
      !['CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'LastViewedDate', 'LastReferencedDate'].includes(
        f.name,
      ),
  );
  return [...(name === undefined ? [] : [name]), ...rest.slice(0, 4)];
}

/** Id of the n-th list view of an object: `00B` + a stable number from the key prefix. */
function viewId(meta: ObjectMeta, n: number): string {
  let h = 0;
  for (const c of meta.name) h = (h * 31 + c.charCodeAt(0)) % 46656;
  const body = `00B5g00000${h.toString(36).toUpperCase().padStart(3, '0')}${n}`;
  return toId18(body.padEnd(15, '0').slice(0, 15));
}

export function listViewsOf(meta: ObjectMeta): ListView[] {
  if (!meta.describe.queryable || meta.keyPrefix === '') return [];
  const plural = meta.describe.labelPlural;
  const compact = plural.replace(/[^A-Za-z0-9]/g, '');
  const columns = columnsOf(meta);
  const views: ListView[] = [];
  const owned = meta.field('OwnerId') !== undefined;
  views.push({
    id: viewId(meta, 1),
    developerName: `All${compact}`,
    label: `All ${plural}`,
    meta,
    scope: 'everything',
    columns,
  });
  if (owned)
    views.push({
      id: viewId(meta, 2),
      developerName: `My${compact}`,
      label: `My ${plural}`,
      meta,
      scope: 'mine',
      columns,
    });
  views.push({
    id: viewId(meta, 3),
    developerName: `RecentlyViewed${compact}`,
    label: `Recently Viewed ${plural}`,
    meta,
    scope: 'recent',
    columns,
  });
  return views;
}

/** The list view with this id among every object's (15 or 18 characters). */
export function findListView(ctx: SalesforceContext, id: string, meta?: ObjectMeta): ListView | undefined {
  const id18 = id.length === 15 ? toId18(id) : id;
  for (const m of meta === undefined ? ctx.org.schema.all() : [meta]) {
    const v = listViewsOf(m).find((x) => x.id === id18 || x.developerName.toLowerCase() === id.toLowerCase());
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The view's SOQL: the shown columns, hidden Id and audit columns, its scope, sorted by the name field. */
export function listViewQuery(view: ListView, userId: string, viewedIds: string[] = []): string {
  const shown = view.columns.map((f) => f.name);
  const hidden = ['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'].filter(
    (f) => view.meta.field(f) !== undefined,
  );
  const select = [...shown, ...hidden.filter((h) => !shown.includes(h))];
  const where =
    view.scope === 'mine'
      ? ` WHERE OwnerId = '${userId}'`
      : view.scope === 'recent'
        ? ` WHERE Id IN (${viewedIds.length === 0 ? "''" : viewedIds.map((i) => `'${i}'`).join(', ')})`
        : '';
  const sort = view.columns[0]?.name ?? 'Id';
  return `SELECT ${select.join(', ')} FROM ${view.meta.name}${where} ORDER BY ${sort} ASC NULLS FIRST, Id ASC NULLS FIRST`;
}

function columnDescribes(view: ListView) {
  const sortField = view.columns[0]?.name;
  const hidden = ['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp']
    .map((n) => view.meta.field(n))
    .filter((f): f is FieldDescribe => f !== undefined && !view.columns.includes(f));
  return [
    ...view.columns.map((f) => ({ f, hidden: false })),
    ...hidden.map((f) => ({ f, hidden: true })),
  ].map(({ f, hidden }) => ({
    ascendingLabel: f.type === 'string' || f.type === 'picklist' ? 'A-Z' : 'Low to High',
    descendingLabel: f.type === 'string' || f.type === 'picklist' ? 'Z-A' : 'High to Low',
    fieldNameOrPath: f.name,
    hidden,
    label: f.label,
    searchable: f.type === 'string' || f.type === 'email' || f.type === 'phone',
    selectListItem: f.name,
    sortDirection: f.name === sortField ? 'ascending' : null,
    sortIndex: f.name === sortField ? 0 : null,
    sortable: f.sortable,
    type: f.type,
  }));
}

function entry(view: ListView, version: string) {
  const url = `/services/data/v${version}/sobjects/${view.meta.name}/listviews/${view.id}`;
  return {
    describeUrl: `${url}/describe`,
    developerName: view.developerName,
    id: view.id,
    label: view.label,
    resultsUrl: `${url}/results`,
    soqlCompatible: true,
    url,
  };
}

type Params = { version: string; sobject: string; id: string };

export function registerListViewRoutes(app: FastifyInstance, ctx: SalesforceContext): void {
  const base = '/services/data/:version/sobjects/:sobject/listviews';
  const viewed = (userId: string, meta: ObjectMeta) =>
    ctx.org.recentlyViewed(userId, meta.name).map((r) => String(r.record.Id));

  app.get<{ Params: Params }>(base, { config: { kind: 'rest.listviews' } }, async (request, reply) => {
    const version = versionOf(request, reply);
    if (version === null) return reply;
    const meta = objectOf(ctx, request, reply);
    if (meta === null) return reply;
    const listviews = listViewsOf(meta).map((v) => entry(v, version));
    return sendJson(reply, 200, {
      done: true,
      listviews,
      nextRecordsUrl: null,
      size: listviews.length,
      sobjectType: meta.name,
    });
  });

  const viewOf = (request: { params: Params }, meta: ObjectMeta) =>
    findListView(ctx, request.params.id, meta);

  app.get<{ Params: Params }>(
    `${base}/:id`,
    { config: { kind: 'rest.listview' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const view = viewOf(request, meta);
      if (view === undefined) return sendErrors(reply, 404, [NOT_FOUND]);
      return sendJson(reply, 200, entry(view, version));
    },
  );

  app.get<{ Params: Params }>(
    `${base}/:id/describe`,
    { config: { kind: 'rest.listview.describe' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const view = viewOf(request, meta);
      if (view === undefined) return sendErrors(reply, 404, [NOT_FOUND]);
      const user = userOf(ctx, request);
      return sendJson(reply, 200, {
        columns: columnDescribes(view),
        id: view.id,
        orderBy: [
          {
            fieldNameOrPath: view.columns[0]?.name ?? 'Id',
            nullsPosition: 'first',
            sortDirection: 'ascending',
          },
          { fieldNameOrPath: 'Id', nullsPosition: 'first', sortDirection: 'ascending' },
        ],
        query: listViewQuery(view, user, viewed(user, meta)),
        relatedEntityId: null,
        scope: view.scope,
        scopeEntityId: null,
        sobjectType: meta.name,
        whereCondition: { conditions: [], conjunction: 'and' },
      });
    },
  );

  app.get<{ Params: Params; Querystring: { limit?: string; offset?: string } }>(
    `${base}/:id/results`,
    { config: { kind: 'rest.listview.results' } },
    async (request, reply) => {
      const version = versionOf(request, reply);
      if (version === null) return reply;
      const meta = objectOf(ctx, request, reply);
      if (meta === null) return reply;
      const view = viewOf(request, meta);
      if (view === undefined) return sendErrors(reply, 404, [NOT_FOUND]);
      // Salesforce: limit 1 … 2000 (default 25), offset up to 2000.
      const limit = Math.min(2000, Math.max(1, Number(request.query.limit ?? 25) || 25));
      const offset = Math.min(2000, Math.max(0, Number(request.query.offset ?? 0) || 0));
      const user = userOf(ctx, request);
      const columns = columnDescribes(view);
      try {
        const run = ctx.org.query(listViewQuery(view, user, viewed(user, meta)), { version });
        const records = run.records.slice(offset, offset + limit).map((r) => ({
          columns: columns.map((c) => {
            const v = r[c.fieldNameOrPath];
            return {
              fieldNameOrPath: c.fieldNameOrPath,
              value: v === null || v === undefined ? null : String(v),
            };
          }),
        }));
        return sendJson(reply, 200, {
          columns,
          developerName: view.developerName,
          done: offset + limit >= run.records.length,
          id: view.id,
          label: view.label,
          records,
          size: run.records.length,
        });
      } catch (e) {
        return sendKernelError(reply, e);
      }
    },
  );
}
