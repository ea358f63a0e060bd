import type { OrderByClause } from '@jetstreamapp/soql-parser-js';
import type { ObjectMeta } from '../org/meta.ts';
import type { FieldDescribe, FieldValue } from '../org/types.ts';
import type { AggregateColumn, AggregateOrder } from './aggregate.ts';
import { columnOf, located, SoqlError } from './errors.ts';
import { type FieldPath, type QueryHost, resolvePath } from './paths.ts';

/**
 * SOQL functions beyond the aggregates: date functions (in SELECT, GROUP BY and ORDER BY of an
 * aggregate query), `toLabel()` and `FORMAT()`, `GROUP BY ROLLUP` / `CUBE` with `GROUPING()`, and
 * ORDER BY an aggregate.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_date_functions.htm
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_groupby_rollup.htm
 */
export const DATE_FUNCTIONS = new Set([
  'CALENDAR_MONTH',
  'CALENDAR_QUARTER',
  'CALENDAR_YEAR',
  'DAY_IN_MONTH',
  'DAY_IN_WEEK',
  'DAY_IN_YEAR',
  'DAY_ONLY',
  'FISCAL_MONTH',
  'FISCAL_QUARTER',
  'FISCAL_YEAR',
  'HOUR_IN_DAY',
  'WEEK_IN_MONTH',
  'WEEK_IN_YEAR',
]);

const DAY = 86_400_000;

/** A date function of a date or datetime value (UTC; the org's fiscal year starts in January). */
export function dateFunctionValue(fn: string, value: FieldValue): FieldValue {
  if (typeof value !== 'string' || value === '') return null;
  const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) return null;
  const year = d.getUTCFullYear();
  const dayOfYear =
    Math.floor((Date.UTC(year, d.getUTCMonth(), d.getUTCDate()) - Date.UTC(year, 0, 1)) / DAY) + 1;
  switch (fn) {
    case 'CALENDAR_MONTH':
    case 'FISCAL_MONTH':
      return d.getUTCMonth() + 1;
    case 'CALENDAR_QUARTER':
    case 'FISCAL_QUARTER':
      return Math.floor(d.getUTCMonth() / 3) + 1;
    case 'CALENDAR_YEAR':
    case 'FISCAL_YEAR':
      return year;
    case 'DAY_IN_MONTH':
      return d.getUTCDate();
    case 'DAY_IN_WEEK':
      return d.getUTCDay() + 1; // 1 = Sunday
    case 'DAY_IN_YEAR':
      return dayOfYear;
    case 'DAY_ONLY':
      return d.toISOString().slice(0, 10);
    case 'HOUR_IN_DAY':
      return d.getUTCHours();
    case 'WEEK_IN_MONTH':
      return Math.floor((d.getUTCDate() - 1) / 7) + 1;
    case 'WEEK_IN_YEAR':
      return Math.floor((dayOfYear - 1) / 7) + 1;
    default:
      return null;
  }
}

const number = (n: number, digits: number) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * `FORMAT()`: the value as the user's locale shows it (the sandbox user's: en_US, USD, UTC), e.g.
 * `$44,000.00` and `4/10/2025, 3:31 PM` as the FORMAT() page shows.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_format.htm
 */
export function formatValue(field: FieldDescribe | undefined, value: FieldValue): FieldValue {
  if (value === null || value === undefined) return null;
  const type = field?.type;
  if (typeof value === 'number') {
    // A single-currency org in USD: `$44,000.00` (the FORMAT() page's example).
    if (type === 'currency') return `${value < 0 ? '-' : ''}$${number(Math.abs(value), field?.scale ?? 2)}`;
    if (type === 'percent') return `${number(value, field?.scale ?? 0)}%`;
    return number(value, type === 'int' ? 0 : (field?.scale ?? 0));
  }
  if (type === 'date' && typeof value === 'string') {
    const [y, m, d] = value.split('-');
    return `${Number(m)}/${Number(d)}/${y}`;
  }
  if (type === 'datetime' && typeof value === 'string') {
    const t = new Date(value);
    const hours = t.getUTCHours() % 12 === 0 ? 12 : t.getUTCHours() % 12;
    const minutes = String(t.getUTCMinutes()).padStart(2, '0');
    return `${t.getUTCMonth() + 1}/${t.getUTCDate()}/${t.getUTCFullYear()}, ${hours}:${minutes} ${t.getUTCHours() < 12 ? 'AM' : 'PM'}`;
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return value;
}

/** `toLabel()`: a picklist value's label (each value of a multi-select), else the value. */
export function labelValue(field: FieldDescribe, value: FieldValue): FieldValue {
  if (typeof value !== 'string') return value;
  const label = (v: string) => field.picklistValues.find((p) => p.value === v)?.label ?? v;
  return field.type === 'multipicklist' ? value.split(';').map(label).join(';') : label(value);
}

/** A `toLabel(f)` / `FORMAT(f)` column of a plain query: written under the alias, or the field's name. */
export interface TransformColumn {
  fn: 'TOLABEL' | 'FORMAT';
  path: FieldPath;
  key: string;
}

interface FunctionField {
  functionName: string;
  parameters?: unknown[];
  alias?: string;
  rawValue?: string;
}

const exprAlias = (aggregates: AggregateColumn[], alias: string | undefined) =>
  alias ?? `expr${aggregates.filter((a) => !a.aliased).length}`;

/**
 * Select-list functions other than the aggregates and FIELDS(): true when handled (the column
 * added to `transforms` or `aggregates`), false for a function this module does not know.
 */
export function compileFunctionColumn(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  f: FunctionField,
  out: { aggregates: AggregateColumn[]; transforms: TransformColumn[] },
): boolean {
  const fn = f.functionName.toUpperCase();
  const param = f.parameters?.[0];
  const at = () => columnOf(soql, f.rawValue ?? fn);
  if (fn === 'GROUPING' && typeof param === 'string') {
    const path = resolvePath(host, soql, meta, param);
    out.aggregates.push({
      fn,
      path,
      alias: exprAlias(out.aggregates, f.alias),
      aliased: f.alias !== undefined,
    });
    return true;
  }
  if (fn !== 'TOLABEL' && fn !== 'FORMAT') return false;
  if (typeof param !== 'string') {
    const inner = param as FunctionField | undefined;
    if (fn === 'FORMAT' && inner?.functionName !== undefined) {
      const innerParam = inner.parameters?.[0];
      const path = typeof innerParam === 'string' ? resolvePath(host, soql, meta, innerParam) : null;
      const alias = exprAlias(out.aggregates, f.alias);
      out.aggregates.push({
        fn: inner.functionName.toUpperCase(),
        path,
        alias,
        aliased: f.alias !== undefined,
        format: true,
      });
      return true;
    }
    throw new SoqlError('MALFORMED_QUERY', located(soql, at(), `${f.functionName}() takes one field`));
  }
  const path = resolvePath(host, soql, meta, param);
  if (
    fn === 'TOLABEL' &&
    !['picklist', 'multipicklist'].includes(path.field.type) &&
    path.field.name !== 'Name'
  ) {
    throw new SoqlError(
      'INVALID_FIELD',
      located(soql, at(), `toLabel() applies to picklist fields; ${path.path} is of type ${path.field.type}`),
    );
  }
  out.transforms.push({ fn, path, key: f.alias ?? path.field.name });
  return true;
}

/** One key of a GROUP BY: a field, or a date function of one. */
export interface GroupKey {
  path: FieldPath;
  fn: string | null;
}

export interface Grouping {
  keys: GroupKey[];
  /** `ROLLUP(…)` adds subtotal rows level by level; `CUBE(…)` for every combination. */
  rollup: 'ROLLUP' | 'CUBE' | null;
}

interface RawGroupBy {
  field?: string;
  fn?: FunctionField;
}

/** The GROUP BY clause: fields, date functions of fields, or one ROLLUP / CUBE of fields. */
export function parseGroupBy(host: QueryHost, soql: string, meta: ObjectMeta, raw: unknown): Grouping {
  const items = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) as RawGroupBy[];
  const keys: GroupKey[] = [];
  let rollup: Grouping['rollup'] = null;
  for (const g of items) {
    if (typeof g.field === 'string') {
      keys.push({ path: resolvePath(host, soql, meta, g.field), fn: null });
      continue;
    }
    const fn = g.fn?.functionName.toUpperCase() ?? '';
    const params = (g.fn?.parameters ?? []).filter((p): p is string => typeof p === 'string');
    if ((fn === 'ROLLUP' || fn === 'CUBE') && params.length > 0 && items.length === 1) {
      rollup = fn;
      for (const p of params) keys.push({ path: resolvePath(host, soql, meta, p), fn: null });
    } else if (DATE_FUNCTIONS.has(fn) && params.length === 1) {
      keys.push({ path: dateField(host, soql, meta, fn, params[0] as string), fn });
    } else {
      throw new SoqlError(
        'MALFORMED_QUERY',
        located(soql, columnOf(soql, 'GROUP BY'), `unexpected token in GROUP BY: ${g.fn?.rawValue ?? fn}`),
      );
    }
  }
  return { keys, rollup };
}

/** The field of a date function, which must be a date or datetime. */
export function dateField(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  fn: string,
  raw: string,
): FieldPath {
  const path = resolvePath(host, soql, meta, raw);
  if (path.field.type !== 'date' && path.field.type !== 'datetime') {
    throw new SoqlError(
      'INVALID_FIELD',
      located(
        soql,
        columnOf(soql, fn),
        `${fn}() applies to date and datetime fields; ${path.path} is of type ${path.field.type}`,
      ),
    );
  }
  return path;
}

/** Date-function columns of the select list must be among the GROUP BY keys, as Salesforce requires. */
export function checkDateColumns(soql: string, aggregates: AggregateColumn[], grouping: Grouping): void {
  for (const a of aggregates) {
    if (!DATE_FUNCTIONS.has(a.fn)) continue;
    const grouped = grouping.keys.some((k) => k.fn === a.fn && k.path.path === a.path?.path);
    if (!grouped) {
      throw new SoqlError(
        'MALFORMED_QUERY',
        located(
          soql,
          columnOf(soql, a.fn),
          `Field must be grouped or aggregated: ${a.fn}(${a.path?.path ?? ''})`,
        ),
      );
    }
  }
}

/**
 * ORDER BY: field entries sort the rows; in an aggregate query every entry (an aggregate or date
 * function included, selected or not) sorts the aggregate rows.
 */
export function compileOrderBy(
  host: QueryHost,
  soql: string,
  meta: ObjectMeta,
  raw: OrderByClause | OrderByClause[] | undefined,
  aggregates: AggregateColumn[],
  grouped: boolean,
) {
  const items = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const isAggregate = grouped || aggregates.length > 0;
  const orderBy: Array<{ path: FieldPath; desc: boolean; nullsFirst: boolean }> = [];
  const aggOrder: AggregateOrder[] = [];
  for (const o of items) {
    const desc = o.order === 'DESC';
    const nullsFirst = o.nulls === undefined ? !desc : o.nulls === 'FIRST';
    if ('field' in o) {
      const path = resolvePath(host, soql, meta, o.field);
      orderBy.push({ path, desc, nullsFirst });
      if (isAggregate) aggOrder.push({ key: path.field.name, desc, nullsFirst });
      continue;
    }
    if (!isAggregate || !('fn' in o))
      throw new SoqlError('MALFORMED_QUERY', located(soql, 1, 'unexpected token in ORDER BY'));
    const fn = (o.fn.functionName ?? '').toUpperCase();
    const param = o.fn.parameters?.[0];
    const path = typeof param === 'string' ? resolvePath(host, soql, meta, param) : null;
    let col = aggregates.find((a) => a.fn === fn && a.path?.path === path?.path);
    if (col === undefined) {
      col = { fn, path, alias: `__order${aggOrder.length}`, aliased: true, hidden: true };
      aggregates.push(col);
    }
    aggOrder.push({ key: col.alias, desc, nullsFirst });
  }
  return { orderBy, aggOrder };
}
