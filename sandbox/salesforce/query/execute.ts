import {
  type OrderByClause,
  parseQuery,
  type Query,
  type FieldType as SelectField,
  type Subquery,
} from '@jetstreamapp/soql-parser-js';
import { compoundAddress } from '../org/compound.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { FieldValue, SRecord } from '../org/types.ts';
import { type AggregateColumn, aggregate } from './aggregate.ts';
import { columnOf, located, malformed, SoqlError, unsupportedType } from './errors.ts';
import { type FieldPath, type QueryHost, resolvePath, valueAt } from './paths.ts';
import { compileWhere, type Predicate } from './where.ts';

/** Largest OFFSET Salesforce accepts. */
const MAX_OFFSET = 2000;

export interface QueryOptions {
  /** queryAll: deleted records (recycle bin) too. */
  includeDeleted?: boolean;
  /** API version for the records' `attributes.url` (default 62.0). */
  version?: string;
}

/** A query's whole result; paging is the caller's. */
export interface QueryRun {
  totalSize: number;
  records: QueryRecord[];
  /** Dotted paths of the select list in order (`Id`, `Account.Name`): Bulk query's CSV header. */
  columns: string[];
}

export interface QueryRecord {
  attributes: { type: string; url?: string };
  [field: string]: unknown;
}

interface ChildColumn {
  relationshipName: string;
  child: ObjectMeta;
  field: string;
  plan: Plan;
}

interface Plan {
  meta: ObjectMeta;
  columns: FieldPath[];
  children: ChildColumn[];
  aggregates: AggregateColumn[] | null;
  groupBy: FieldPath[];
  where: Predicate | null;
  orderBy: Array<{ path: FieldPath; desc: boolean; nullsFirst: boolean }>;
  limit: number | undefined;
  offset: number;
  countOnly: boolean;
}

function compilePlan(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  q: Query | Subquery,
  version: string,
): Plan {
  const columns: FieldPath[] = [];
  const children: ChildColumn[] = [];
  const aggregates: AggregateColumn[] = [];
  let countOnly = false;
  const add = (p: FieldPath) => {
    if (!columns.some((c) => c.path === p.path)) columns.push(p);
  };
  for (const f of (q.fields ?? []) as SelectField[]) {
    switch (f.type) {
      case 'Field':
        add(resolvePath(host, soql, meta, f.field));
        break;
      case 'FieldRelationship':
        add(resolvePath(host, soql, meta, [...f.relationships, f.field].join('.')));
        break;
      case 'FieldFunctionExpression': {
        const fn = f.functionName.toUpperCase();
        if (fn === 'FIELDS') {
          const which = String(f.parameters?.[0] ?? 'ALL').toUpperCase();
          // Unbounded FIELDS() is refused by Salesforce (FIELDS(STANDARD) is the exception).
          if (which !== 'STANDARD' && (q.limit === undefined || q.limit > 200)) {
            throw new SoqlError(
              'MALFORMED_QUERY',
              located(
                soql,
                columnOf(soql, 'FIELDS'),
                'The SOQL FIELDS function must have a LIMIT of at most 200',
              ),
            );
          }
          for (const fd of meta.fields) {
            if (which === 'CUSTOM' && !fd.custom) continue;
            if (which === 'STANDARD' && fd.custom) continue;
            add({ relationships: [], hops: [], field: fd, path: fd.name });
          }
        } else if (fn === 'COUNT' && (f.parameters ?? []).length === 0) {
          countOnly = true;
        } else if (f.isAggregateFn) {
          const param = f.parameters?.[0];
          const path = typeof param === 'string' ? resolvePath(host, soql, meta, param) : null;
          aggregates.push({
            fn,
            path,
            alias: f.alias ?? `expr${aggregates.filter((a) => !a.aliased).length}`,
            aliased: f.alias !== undefined,
          });
        } else {
          throw new SoqlError(
            'MALFORMED_QUERY',
            located(soql, soql.indexOf(f.rawValue ?? fn) + 1, `unexpected token: '${fn}'`),
          );
        }
        break;
      }
      case 'FieldSubquery': {
        const name = f.subquery.relationshipName;
        const rel = meta.describe.childRelationships.find(
          (r) => r.relationshipName?.toLowerCase() === name.toLowerCase(),
        );
        const child = rel === undefined ? undefined : host.object(rel.childSObject);
        if (rel === undefined || child === undefined) {
          throw new SoqlError(
            'INVALID_TYPE',
            located(
              soql,
              soql.indexOf(name) + 1,
              `Didn't understand relationship '${name}' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.`,
            ),
          );
        }
        children.push({
          relationshipName: rel.relationshipName as string,
          child,
          field: rel.field,
          plan: compilePlan(host, soql, child, f.subquery, version),
        });
        break;
      }
      default:
        throw new SoqlError('MALFORMED_QUERY', located(soql, 1, 'unexpected token in select list'));
    }
  }
  const sub = (vq: Query) => {
    const subMeta = host.object(vq.sObject ?? '');
    if (subMeta === undefined) throw unsupportedType(soql, vq.sObject ?? '');
    const plan = compilePlan(host, soql, subMeta, vq, version);
    const first = plan.columns[0];
    return first === undefined ? [] : select(host, plan, false).map((r) => valueAt(host, r, first));
  };
  const groupBy = (q.groupBy === undefined ? [] : Array.isArray(q.groupBy) ? q.groupBy : [q.groupBy]).map(
    (g) => {
      if (!('field' in g))
        throw new SoqlError('MALFORMED_QUERY', located(soql, 1, 'unexpected token in GROUP BY'));
      return resolvePath(host, soql, meta, g.field);
    },
  );
  const orderBy = (q.orderBy === undefined ? [] : Array.isArray(q.orderBy) ? q.orderBy : [q.orderBy]).map(
    (o: OrderByClause) => {
      if (!('field' in o))
        throw new SoqlError('MALFORMED_QUERY', located(soql, 1, 'unexpected token in ORDER BY'));
      const desc = o.order === 'DESC';
      return {
        path: resolvePath(host, soql, meta, o.field),
        desc,
        nullsFirst: o.nulls === undefined ? !desc : o.nulls === 'FIRST',
      };
    },
  );
  if (q.offset !== undefined && q.offset > MAX_OFFSET) {
    throw new SoqlError(
      'NUMBER_OUTSIDE_VALID_RANGE',
      located(soql, columnOf(soql, 'OFFSET'), `Maximum SOQL offset allowed is ${MAX_OFFSET}`),
    );
  }
  return {
    meta,
    columns,
    children,
    aggregates: aggregates.length > 0 || groupBy.length > 0 ? aggregates : null,
    groupBy,
    where: compileWhere(host, soql, meta, q.where, sub),
    orderBy,
    limit: q.limit,
    offset: q.offset ?? 0,
    countOnly,
  };
}

function cmpValues(a: FieldValue, b: FieldValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a).toLowerCase();
  const y = String(b).toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Filtered and ordered rows of a plan (before OFFSET/LIMIT). */
function select(host: QueryHost, plan: Plan, includeDeleted: boolean, rows?: Iterable<SRecord>): SRecord[] {
  const out: SRecord[] = [];
  for (const rec of rows ?? host.table(plan.meta).rows.values()) {
    if (!includeDeleted && rec.IsDeleted === true) continue;
    if (plan.where === null || plan.where(rec)) out.push(rec);
  }
  if (plan.orderBy.length > 0) {
    const keyed = out.map((rec) => ({ rec, keys: plan.orderBy.map((o) => valueAt(host, rec, o.path)) }));
    keyed.sort((a, b) => {
      for (const [i, o] of plan.orderBy.entries()) {
        const x = a.keys[i] ?? null;
        const y = b.keys[i] ?? null;
        if (x === null && y === null) continue;
        if (x === null) return o.nullsFirst ? -1 : 1;
        if (y === null) return o.nullsFirst ? 1 : -1;
        const d = cmpValues(x, y);
        if (d !== 0) return o.desc ? -d : d;
      }
      return 0;
    });
    return keyed.map((k) => k.rec);
  }
  return out;
}

function window<T>(rows: T[], plan: Plan): T[] {
  const end = plan.limit === undefined ? undefined : plan.offset + plan.limit;
  return plan.offset > 0 || end !== undefined ? rows.slice(plan.offset, end) : rows;
}

const recordUrl = (version: string, type: string, id: FieldValue) =>
  `/services/data/v${version}/sobjects/${type}/${String(id)}`;

function project(
  host: QueryHost,
  plan: Plan,
  rec: SRecord,
  version: string,
  includeDeleted: boolean,
): QueryRecord {
  const out: QueryRecord = {
    attributes: { type: plan.meta.name, url: recordUrl(version, plan.meta.name, rec.Id ?? null) },
  };
  for (const col of plan.columns) {
    let node: Record<string, unknown> = out;
    let cur: SRecord | null = rec;
    for (const [k, hop] of col.hops.entries()) {
      const key = col.relationships[k] as string;
      const id: FieldValue | undefined = cur?.[hop.ref.name];
      const found: { table: { meta: ObjectMeta }; rec: SRecord } | undefined =
        typeof id === 'string' ? host.lookup(id) : undefined;
      cur = found?.rec ?? null;
      if (node[key] === undefined) {
        node[key] =
          found === undefined
            ? null
            : {
                attributes: {
                  type: found.table.meta.name,
                  url: recordUrl(version, found.table.meta.name, id ?? null),
                },
              };
      }
      const next = node[key];
      if (next === null || typeof next !== 'object') {
        cur = null;
        break;
      }
      node = next as Record<string, unknown>;
    }
    if (cur === null) continue;
    const owner = col.hops.length === 0 ? plan.meta : (col.hops[col.hops.length - 1]?.target ?? plan.meta);
    node[col.field.name] =
      col.field.type === 'address'
        ? compoundAddress(owner, col.field.name, cur)
        : (cur[col.field.name] ?? null);
  }
  for (const c of plan.children) {
    const rows = [...host.table(c.child).rows.values()].filter((r) => r[c.field] === rec.Id);
    const recs = window(select(host, c.plan, includeDeleted, rows), c.plan).map((r) =>
      project(host, c.plan, r, version, includeDeleted),
    );
    out[c.relationshipName] =
      recs.length === 0 ? null : { totalSize: recs.length, done: true, records: recs };
  }
  return out;
}

export function query(host: QueryHost, soql: string, options: QueryOptions = {}): QueryRun {
  const version = options.version ?? '62.0';
  let q: Query;
  try {
    q = parseQuery(soql);
  } catch (e) {
    throw malformed(soql, e instanceof Error ? e.message : String(e));
  }
  const meta = host.object(q.sObject ?? '');
  if (meta === undefined) throw unsupportedType(soql, q.sObject ?? '');
  const plan = compilePlan(host, soql, meta, q, version);
  const includeDeleted = options.includeDeleted === true;
  const rows = select(host, plan, includeDeleted);
  if (plan.countOnly) return { totalSize: window(rows, plan).length, records: [], columns: [] };
  if (plan.aggregates !== null) {
    const records = window(aggregate(host, plan.groupBy, plan.aggregates, rows), plan);
    return {
      totalSize: records.length,
      records,
      columns: Object.keys(records[0] ?? {}).filter((k) => k !== 'attributes'),
    };
  }
  const records = window(rows, plan).map((r) => project(host, plan, r, version, includeDeleted));
  return { totalSize: records.length, records, columns: plan.columns.map((c) => c.path) };
}

/** One CSV row of a query record: each column's value by dotted path (null through empty lookups). */
export function flattenRecord(record: QueryRecord, columns: string[]): FieldValue[] {
  return columns.map((path) => {
    let node: unknown = record;
    for (const key of path.split('.')) {
      if (node === null || typeof node !== 'object') return null;
      node = (node as Record<string, unknown>)[key];
    }
    return node === undefined || (typeof node === 'object' && node !== null) ? null : (node as FieldValue);
  });
}
