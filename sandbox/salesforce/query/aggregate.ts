import type { FieldValue, SRecord } from '../org/types.ts';
import type { QueryRecord } from './execute.ts';
import { DATE_FUNCTIONS, dateFunctionValue, formatValue, type Grouping, type GroupKey } from './functions.ts';
import { type FieldPath, type QueryHost, valueAt } from './paths.ts';

export interface AggregateColumn {
  fn: string;
  path: FieldPath | null;
  alias: string;
  aliased: boolean;
  /** `FORMAT(SUM(Amount))`: the value as the user's locale shows it. */
  format?: boolean;
  /** Only there to sort by (`ORDER BY COUNT(Id)` not selected): left out of the rows. */
  hidden?: boolean;
}

/** One aggregate function over a group's rows; `rolled` names the GROUP BY fields a subtotal row rolled up. */
export function aggregateValue(
  host: QueryHost,
  col: AggregateColumn,
  rows: SRecord[],
  rolled: ReadonlySet<string> = new Set(),
): FieldValue {
  const raw = rawAggregate(host, col, rows, rolled);
  return col.format === true ? formatValue(col.path?.field, raw) : raw;
}

function rawAggregate(host: QueryHost, col: AggregateColumn, rows: SRecord[], rolled: ReadonlySet<string>) {
  if (col.fn === 'GROUPING') return rolled.has(col.path?.path ?? '') ? 1 : 0;
  if (DATE_FUNCTIONS.has(col.fn)) {
    const first = rows[0];
    return first === undefined || col.path === null
      ? null
      : dateFunctionValue(col.fn, valueAt(host, first, col.path));
  }
  const values =
    col.path === null
      ? rows.map(() => 1)
      : rows.map((r) => valueAt(host, r, col.path as FieldPath)).filter((v) => v !== null);
  switch (col.fn) {
    case 'COUNT':
      return values.length;
    case 'COUNT_DISTINCT':
      return new Set(values.map(String)).size;
    case 'SUM':
      return values.length === 0 ? null : values.reduce<number>((s, v) => s + Number(v), 0);
    case 'AVG':
      return values.length === 0 ? null : values.reduce<number>((s, v) => s + Number(v), 0) / values.length;
    case 'MIN':
    case 'MAX': {
      if (values.length === 0) return null;
      const sorted = [...values].sort((a, b) =>
        typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)),
      );
      return (col.fn === 'MIN' ? sorted[0] : sorted[sorted.length - 1]) ?? null;
    }
    default:
      return null;
  }
}

const keyValue = (host: QueryHost, r: SRecord, k: GroupKey): FieldValue =>
  k.fn === null ? valueAt(host, r, k.path) : dateFunctionValue(k.fn, valueAt(host, r, k.path));

/** Rows grouped on the keys at the given positions, in first-seen order. */
function groupOn(host: QueryHost, keys: GroupKey[], used: number[], rows: SRecord[]): SRecord[][] {
  const groups = new Map<string, SRecord[]>();
  if (keys.length === 0) return [rows];
  for (const r of rows) {
    const key = JSON.stringify(used.map((i) => keyValue(host, r, keys[i] as GroupKey)));
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [r]);
    else g.push(r);
  }
  return [...groups.values()];
}

/** The key positions of each grouping level: all keys; then, for ROLLUP, one fewer each level; for CUBE, every subset. */
function levels(grouping: Grouping): number[][] {
  const all = grouping.keys.map((_, i) => i);
  if (grouping.rollup === 'ROLLUP') return all.map((_, n) => all.slice(0, all.length - n)).concat([[]]);
  if (grouping.rollup === 'CUBE') {
    const subsets = Array.from({ length: 2 ** all.length }, (_, mask) => all.filter((i) => (mask >> i) & 1));
    return subsets.sort((a, b) => b.length - a.length);
  }
  return [all];
}

/** Aggregate rows (`attributes.type = AggregateResult`, no url), one per group and per subtotal. */
export function aggregate(
  host: QueryHost,
  grouping: Grouping,
  cols: AggregateColumn[],
  rows: SRecord[],
  having: ((members: SRecord[]) => boolean) | null = null,
): QueryRecord[] {
  const out: QueryRecord[] = [];
  for (const used of levels(grouping)) {
    const rolled = new Set(grouping.keys.filter((_, i) => !used.includes(i)).map((k) => k.path.path));
    // Without GROUP BY there is one row even over no rows (COUNT() = 0); with it, none.
    for (const members of groupOn(host, grouping.keys, used, rows)) {
      if (having !== null && !having(members)) continue;
      const rec: QueryRecord = { attributes: { type: 'AggregateResult' } };
      const first = members[0];
      for (const k of grouping.keys) {
        if (k.fn !== null) continue;
        rec[k.path.field.name] =
          first === undefined || rolled.has(k.path.path) ? null : valueAt(host, first, k.path);
      }
      for (const c of cols) rec[c.alias] = aggregateValue(host, c, members, rolled);
      out.push(rec);
    }
  }
  return out;
}

/** One ORDER BY entry of an aggregate query: a GROUP BY field's key or an aggregate column's alias. */
export interface AggregateOrder {
  key: string;
  desc: boolean;
  nullsFirst: boolean;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a).toLowerCase();
  const y = String(b).toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Aggregate rows sorted by their ORDER BY, hidden sort columns then removed. */
export function sortAggregates(
  records: QueryRecord[],
  order: AggregateOrder[],
  cols: AggregateColumn[],
): QueryRecord[] {
  const sorted =
    order.length === 0
      ? records
      : [...records].sort((a, b) => {
          for (const o of order) {
            const x = a[o.key] ?? null;
            const y = b[o.key] ?? null;
            if (x === null && y === null) continue;
            if (x === null) return o.nullsFirst ? -1 : 1;
            if (y === null) return o.nullsFirst ? 1 : -1;
            const d = compare(x, y);
            if (d !== 0) return o.desc ? -d : d;
          }
          return 0;
        });
  const hidden = cols.filter((c) => c.hidden === true).map((c) => c.alias);
  if (hidden.length === 0) return sorted;
  return sorted.map(
    (r) => Object.fromEntries(Object.entries(r).filter(([k]) => !hidden.includes(k))) as QueryRecord,
  );
}
