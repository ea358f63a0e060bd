import { createRequire } from 'node:module';
import type { Query, FieldType as SelectField, Subquery } from '@jetstreamapp/soql-parser-js';
import { compoundAddress } from '../org/compound.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { FieldValue, SRecord } from '../org/types.ts';
import { activityRows, activityView } from './activities.ts';
import {
  type AggregateColumn,
  type AggregateOrder,
  aggregate,
  aggregateValue,
  sortAggregates,
} from './aggregate.ts';
import { columnOf, located, malformed, SoqlError, unsupportedType } from './errors.ts';
import {
  checkDateColumns,
  compileFunctionColumn,
  compileOrderBy,
  DATE_FUNCTIONS,
  dateField,
  formatValue,
  type Grouping,
  labelValue,
  parseGroupBy,
  type TransformColumn,
} from './functions.ts';
import { type FieldPath, polymorphicValue, type QueryHost, resolvePath, valueAt } from './paths.ts';
import { compileWhere, type Predicate } from './where.ts';

type SoqlParser = typeof import('@jetstreamapp/soql-parser-js');
let parser: SoqlParser | undefined;

/** The SOQL parser, loaded at the first query: building its grammar costs a sandbox that never queries ~0.15 s. */
function parseQuery(soql: string): Query {
  parser ??= createRequire(import.meta.url)('@jetstreamapp/soql-parser-js') as SoqlParser;
  return parser.parseQuery(soql);
}

/** Largest OFFSET Salesforce accepts. */
const MAX_OFFSET = 2000;

export interface QueryOptions {
  /** queryAll: deleted records (recycle bin) too. */
  includeDeleted?: boolean;
  /** `FOR VIEW` / `FOR REFERENCE`: the ids of the records returned (they become recently viewed). */
  onView?: (ids: string[]) => void;
  /** API version for the records' `attributes.url` (default 62.0). */
  version?: string;
}

/** A query's whole result; paging is the caller's. */
export interface QueryRun {
  totalSize: number;
  records: QueryRecord[];
  /** Dotted paths of the select list in order (`Id`, `Account.Name`): Bulk query's CSV header. */
  columns: string[];
  /** An aggregate query (aggregate functions or GROUP BY): its rows come in one batch, no queryMore. */
  aggregate?: boolean;
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
  /** ActivityHistory / OpenActivity: rows built from tasks and events, not read from a table. */
  view: boolean;
}

/** `TYPEOF What WHEN Account THEN Name, Phone ELSE Name END`: the fields to read per target type. */
interface TypeofColumn {
  relationshipName: string;
  ref: FieldPath['field'];
  /** Lower-case object name → field names; `''` is the ELSE branch. */
  branches: Map<string, string[]>;
}

interface Plan {
  meta: ObjectMeta;
  columns: FieldPath[];
  typeofs: TypeofColumn[];
  having: ((members: SRecord[]) => boolean) | null;
  children: ChildColumn[];
  aggregates: AggregateColumn[] | null;
  groupBy: FieldPath[];
  grouping: Grouping;
  /** `toLabel(f)` / `FORMAT(f)` columns of a plain query. */
  transforms: TransformColumn[];
  /** ORDER BY of an aggregate query, applied to its rows (aggregates and date functions included). */
  aggOrder: AggregateOrder[];
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
  const typeofs: TypeofColumn[] = [];
  const transforms: TransformColumn[] = [];
  let countOnly = false;
  let aliasedField: string | null = null;
  const add = (p: FieldPath) => {
    if (!columns.some((c) => c.path === p.path)) columns.push(p);
  };
  for (const f of (q.fields ?? []) as SelectField[]) {
    switch (f.type) {
      case 'Field':
        if (f.alias !== undefined) aliasedField ??= f.alias;
        add(resolvePath(host, soql, meta, f.field));
        break;
      case 'FieldRelationship':
        if ('alias' in f && f.alias !== undefined) aliasedField ??= f.alias;
        add(resolvePath(host, soql, meta, [...f.relationships, f.field].join('.')));
        break;
      case 'FieldTypeof':
        typeofs.push(compileTypeof(host, soql, meta, f));
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
        } else if (compileFunctionColumn(host, soql, meta, f, { aggregates, transforms })) {
          // toLabel(), FORMAT(), GROUPING(): added by the call.
        } else if (f.isAggregateFn) {
          const param = f.parameters?.[0];
          const path =
            typeof param !== 'string'
              ? null
              : DATE_FUNCTIONS.has(fn)
                ? dateField(host, soql, meta, fn, param)
                : resolvePath(host, soql, meta, param);
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
        const view = rel === undefined ? undefined : activityView(rel.childSObject);
        const child = rel === undefined ? undefined : (host.object(rel.childSObject) ?? view);
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
          view: child === view,
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
  const grouping = parseGroupBy(host, soql, meta, q.groupBy);
  const groupBy = grouping.keys.map((k) => k.path);
  checkDateColumns(soql, aggregates, grouping);
  const { orderBy, aggOrder } = compileOrderBy(host, soql, meta, q.orderBy, aggregates, groupBy.length > 0);
  // `SELECT Id Name FROM Account` (a missing comma) reads as an alias of Id: Salesforce refuses it.
  if (aliasedField !== null && aggregates.length === 0 && groupBy.length === 0) {
    throw new SoqlError(
      'MALFORMED_QUERY',
      located(soql, aliasColumn(soql, aliasedField), 'Only aggregate expressions use field aliasing'),
    );
  }
  if (q.having !== undefined && groupBy.length === 0 && aggregates.length === 0) {
    throw new SoqlError(
      'MALFORMED_QUERY',
      located(soql, columnOf(soql, 'HAVING'), 'HAVING clause requires an aggregate query'),
    );
  }
  if (q.offset !== undefined && q.offset > MAX_OFFSET) {
    throw new SoqlError(
      'NUMBER_OUTSIDE_VALID_RANGE',
      located(soql, columnOf(soql, 'OFFSET'), `Maximum SOQL offset allowed is ${MAX_OFFSET}`),
    );
  }
  return {
    meta,
    columns,
    typeofs,
    having: q.having === undefined ? null : compileHaving(host, soql, meta, q.having),
    children,
    aggregates: aggregates.length > 0 || groupBy.length > 0 ? aggregates : null,
    groupBy,
    grouping,
    transforms,
    aggOrder,
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
    if (col.polymorphic === true) {
      node[col.field.name] = polymorphicValue(host, rec, col);
      continue;
    }
    const owner = col.hops.length === 0 ? plan.meta : (col.hops[col.hops.length - 1]?.target ?? plan.meta);
    node[col.field.name] =
      col.field.type === 'address'
        ? compoundAddress(owner, col.field.name, cur)
        : col.field.type === 'base64' && cur[col.field.name] != null
          ? `${recordUrl(version, owner.name, cur.Id ?? null)}/${col.field.name}`
          : (cur[col.field.name] ?? null);
  }
  for (const t of plan.transforms) {
    const value = valueAt(host, rec, t.path);
    out[t.key] = t.fn === 'TOLABEL' ? labelValue(t.path.field, value) : formatValue(t.path.field, value);
  }
  for (const t of plan.typeofs) {
    const id = rec[t.ref.name];
    const found = typeof id === 'string' ? host.lookup(id) : undefined;
    if (found === undefined) {
      out[t.relationshipName] = null;
      continue;
    }
    const type = found.table.meta.name;
    const fields = t.branches.get(type.toLowerCase()) ?? t.branches.get('') ?? [];
    const node: Record<string, unknown> = { attributes: { type, url: recordUrl(version, type, id ?? null) } };
    for (const name of fields) {
      const fd = found.table.meta.field(name);
      if (fd !== undefined) node[fd.name] = found.rec[fd.name] ?? null;
    }
    out[t.relationshipName] = node;
  }
  for (const c of plan.children) {
    const rows = c.view
      ? activityRows(host, c.child, c.field, rec.Id)
      : [...host.table(c.child).rows.values()].filter((r) => r[c.field] === rec.Id);
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
  if (meta === undefined) {
    const view = activityView(q.sObject ?? '');
    // Reached only through a parent's ActivityHistories / OpenActivities.
    if (view !== undefined)
      throw new SoqlError('INVALID_TYPE_FOR_OPERATION', `entity type ${view.name} does not support query`);
    throw unsupportedType(soql, q.sObject ?? '');
  }
  const plan = compilePlan(host, soql, meta, q, version);
  const includeDeleted = options.includeDeleted === true;
  const rows = select(host, plan, includeDeleted);
  if (plan.countOnly) return { totalSize: window(rows, plan).length, records: [], columns: [] };
  if (plan.aggregates !== null) {
    const grouped = aggregate(host, plan.grouping, plan.aggregates, rows, plan.having);
    const records = window(sortAggregates(grouped, plan.aggOrder, plan.aggregates), plan);
    return {
      totalSize: records.length,
      records,
      columns: Object.keys(records[0] ?? {}).filter((k) => k !== 'attributes'),
      aggregate: true,
    };
  }
  const records = window(rows, plan).map((r) => project(host, plan, r, version, includeDeleted));
  if (q.for === 'VIEW' || q.for === 'REFERENCE') options.onView?.(records.map((r) => String(r.Id ?? '')));
  return {
    totalSize: records.length,
    records,
    columns: [...plan.columns.map((c) => c.path), ...plan.transforms.map((t) => t.key)],
  };
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

/** 1-based column of an alias token that follows a field (`Name` in `SELECT Id Name`). */
function aliasColumn(soql: string, alias: string): number {
  const m = new RegExp(`[\\w.)]\\s+(${alias})\\b`, 'i').exec(soql);
  return m === null ? 1 : m.index + m[0].length - alias.length + 1;
}

function compileTypeof(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  f: Extract<SelectField, { type: 'FieldTypeof' }>,
): TypeofColumn {
  const ref = meta.relationship(f.field);
  if (ref === undefined || !ref.polymorphicForeignKey) {
    throw new SoqlError(
      'INVALID_FIELD',
      located(
        soql,
        columnOf(soql, f.field, soql.toLowerCase().indexOf('typeof')),
        `TYPEOF can only be used with polymorphic relationships: ${f.field}`,
      ),
    );
  }
  const branches = new Map<string, string[]>();
  for (const c of f.conditions) {
    if (c.type === 'WHEN') {
      const target = host.object(c.objectType ?? '');
      if (
        target === undefined ||
        !ref.referenceTo.some((t) => t.toLowerCase() === target.name.toLowerCase())
      ) {
        throw unsupportedType(soql, c.objectType ?? '');
      }
      for (const name of c.fieldList) resolvePath(host, soql, target, name);
      branches.set(target.name.toLowerCase(), c.fieldList);
    } else {
      branches.set('', c.fieldList);
    }
  }
  return { relationshipName: ref.relationshipName as string, ref, branches };
}

type HavingNode = { left?: unknown; operator?: string; right?: HavingNode };

/** HAVING over groups: conditions on aggregate functions or grouped fields, joined by AND / OR. */
function compileHaving(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  having: unknown,
): (members: SRecord[]) => boolean {
  const conds: Array<{ join: string; test: (members: SRecord[]) => boolean }> = [];
  let node: HavingNode | undefined = having as HavingNode;
  let join = 'AND';
  while (node !== undefined) {
    const left = node.left as {
      fn?: { functionName: string; parameters?: unknown[] };
      field?: string;
      operator: string;
      value: string | string[];
      literalType?: string;
    };
    if (left === undefined || left === null) break;
    const param = left.fn?.parameters?.[0];
    const col: AggregateColumn | null =
      left.fn !== undefined
        ? {
            fn: left.fn.functionName.toUpperCase(),
            path: typeof param === 'string' ? resolvePath(host, soql, meta, param) : null,
            alias: '',
            aliased: false,
          }
        : null;
    const path = left.field !== undefined ? resolvePath(host, soql, meta, left.field) : null;
    const raw = Array.isArray(left.value) ? (left.value[0] ?? '') : left.value;
    const numeric = left.literalType === 'INTEGER' || left.literalType === 'DECIMAL';
    const want: FieldValue = numeric ? Number(raw) : String(raw).replace(/^'|'$/g, '');
    const op = left.operator;
    conds.push({
      join,
      test: (members) => {
        const first = members[0];
        const v =
          col !== null
            ? aggregateValue(host, col, members)
            : first === undefined || path === null
              ? null
              : valueAt(host, first, path);
        if (v === null) return op === '=' ? want === null : op === '!=' || op === '<>';
        const d = cmpValues(v, want);
        switch (op) {
          case '=':
            return d === 0;
          case '!=':
          case '<>':
            return d !== 0;
          case '<':
            return d < 0;
          case '<=':
            return d <= 0;
          case '>':
            return d > 0;
          case '>=':
            return d >= 0;
          default:
            throw new SoqlError(
              'MALFORMED_QUERY',
              located(soql, columnOf(soql, 'HAVING'), `unexpected token: '${op}'`),
            );
        }
      },
    });
    join = node.operator ?? 'AND';
    node = node.right;
  }
  return (members) => {
    // AND binds tighter than OR, as in WHERE.
    let any = false;
    let all = true;
    for (const c of conds) {
      if (c.join === 'OR') {
        any ||= all;
        all = true;
      }
      all &&= c.test(members);
    }
    return any || all;
  };
}

/** Parsed and checked like a run, without reading any record. */
function compileQuery(host: QueryHost, soql: string, version: string): { q: Query; plan: Plan } {
  let q: Query;
  try {
    q = parseQuery(soql);
  } catch (e) {
    throw malformed(soql, e instanceof Error ? e.message : String(e));
  }
  const meta = host.object(q.sObject ?? '');
  if (meta === undefined) throw unsupportedType(soql, q.sObject ?? '');
  return { q, plan: compilePlan(host, soql, meta, q, version) };
}

export interface ColumnMetadata {
  aggregate: boolean;
  apexType: string | null;
  booleanType: boolean;
  columnName: string;
  custom: boolean;
  displayName: string;
  foreignKeyName: string | null;
  insertable: boolean;
  joinColumns: ColumnMetadata[];
  numberType: boolean;
  textType: boolean;
  updatable: boolean;
}

const APEX_TYPES: Record<string, string> = {
  id: 'Id',
  reference: 'Id',
  boolean: 'Boolean',
  int: 'Integer',
  long: 'Long',
  double: 'Double',
  currency: 'Double',
  percent: 'Double',
  date: 'Date',
  datetime: 'Datetime',
  time: 'Time',
  base64: 'Blob',
  address: 'Address',
  location: 'Location',
};

function fieldColumn(f: FieldPath['field']): ColumnMetadata {
  const apexType = APEX_TYPES[f.type] ?? 'String';
  return {
    aggregate: false,
    apexType,
    booleanType: f.type === 'boolean',
    columnName: f.name,
    custom: f.custom,
    displayName: f.name,
    foreignKeyName: null,
    insertable: f.createable,
    joinColumns: [],
    numberType: ['Integer', 'Long', 'Double'].includes(apexType),
    textType: apexType === 'String',
    updatable: f.updateable,
  };
}

function joinColumn(name: string, aggregate: boolean, children: ColumnMetadata[]): ColumnMetadata {
  return {
    aggregate,
    apexType: null,
    booleanType: false,
    columnName: name,
    custom: name.endsWith('__r'),
    displayName: name,
    foreignKeyName: null,
    insertable: false,
    joinColumns: children,
    numberType: false,
    textType: false,
    updatable: false,
  };
}

function planColumns(plan: Plan): ColumnMetadata[] {
  const out: ColumnMetadata[] = [];
  for (const c of plan.columns) {
    let list = out;
    for (const rel of c.relationships) {
      let node = list.find((n) => n.columnName === rel && n.apexType === null);
      if (node === undefined) {
        node = joinColumn(rel, false, []);
        list.push(node);
      }
      list = node.joinColumns;
    }
    list.push(fieldColumn(c.field));
  }
  for (const t of plan.typeofs) out.push(joinColumn(t.relationshipName, false, []));
  for (const a of plan.aggregates ?? []) {
    const display = `${a.fn}(${a.path?.path ?? ''})`;
    out.push({
      ...joinColumn(a.alias, true, []),
      apexType:
        a.fn === 'COUNT' || a.fn === 'COUNT_DISTINCT'
          ? 'Integer'
          : a.path?.field.type === 'datetime'
            ? 'Datetime'
            : a.path?.field.type === 'date'
              ? 'Date'
              : 'Double',
      displayName: a.aliased ? a.alias : display,
      numberType: true,
    });
  }
  for (const c of plan.children) out.push(joinColumn(c.relationshipName, true, planColumns(c.plan)));
  return out;
}

/** `GET /query?q=…&columns=true`: the select list's column metadata (what query editors show). */
export function queryColumns(host: QueryHost, soql: string, version = '62.0') {
  const { plan } = compileQuery(host, soql, version);
  return {
    columnMetadata: plan.countOnly ? [] : planColumns(plan),
    entityName: plan.meta.name,
    groupBy: plan.groupBy.length > 0,
    idSelected: plan.columns.some((c) => c.relationships.length === 0 && c.field.type === 'id'),
    keyPrefix: plan.meta.keyPrefix || null,
  };
}

/** Fields a filter of the WHERE clause reads (top-level conditions of the root object). */
function whereFields(where: unknown, out: string[] = []): string[] {
  if (typeof where !== 'object' || where === null) return out;
  const w = where as { left?: { field?: string }; right?: unknown };
  if (w.left?.field !== undefined) out.push(w.left.field);
  if (w.right !== undefined) whereFields(w.right, out);
  return out;
}

/** Salesforce's standard indexes: Id, Name, owner, lookups, audit dates, external ids, unique fields. */
function indexed(f: FieldPath['field']): boolean {
  return (
    f.type === 'id' ||
    f.type === 'reference' ||
    f.externalId ||
    f.unique ||
    f.nameField ||
    f.name === 'CreatedDate' ||
    f.name === 'SystemModstamp'
  );
}

/**
 * `GET /query?explain=…`: the Query Plan tool's answer. The sandbox has no optimiser; it names the
 * plans Salesforce would weigh (an index on each filtered indexed field, and the table scan) with
 * cardinalities counted from the data and costs that rank a selective index first.
 */
export function explainQuery(host: QueryHost, soql: string, version = '62.0') {
  const { q, plan } = compileQuery(host, soql, version);
  let total = 0;
  for (const rec of host.table(plan.meta).rows.values()) if (rec.IsDeleted !== true) total += 1;
  const matching = select(host, plan, false).length;
  const cardinality = plan.limit === undefined ? matching : Math.min(matching, plan.limit);
  const filtered = whereFields(q.where)
    .map((name) => (name.includes('.') ? undefined : plan.meta.field(name)))
    .filter((f): f is FieldPath['field'] => f !== undefined);
  const plans = [];
  for (const f of filtered.filter(indexed)) {
    const ratio = total === 0 ? 0 : matching / total;
    plans.push({
      cardinality,
      fields: [f.name],
      leadingOperationType: 'Index',
      notes: [],
      relativeCost: Math.round((0.1 + ratio * 0.9) * 1e6) / 1e6,
      sobjectCardinality: total,
      sobjectType: plan.meta.name,
    });
  }
  const unindexed = filtered.filter((f) => !indexed(f)).map((f) => f.name);
  plans.push({
    cardinality,
    fields: [],
    leadingOperationType: 'TableScan',
    notes: [
      {
        description: 'Not considering filter for optimization because unindexed',
        fields: ['IsDeleted', ...unindexed],
        tableEnumOrId: plan.meta.name,
      },
    ],
    relativeCost: Math.round((0.65 + total / 100000) * 1e6) / 1e6,
    sobjectCardinality: total,
    sobjectType: plan.meta.name,
  });
  plans.sort((a, b) => a.relativeCost - b.relativeCost);
  return { plans, sourceQuery: soql };
}
