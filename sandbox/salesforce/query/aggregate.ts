import type { FieldValue, SRecord } from '../org/types.ts';
import type { QueryRecord } from './execute.ts';
import { type FieldPath, type QueryHost, valueAt } from './paths.ts';

export interface AggregateColumn {
  fn: string;
  path: FieldPath | null;
  alias: string;
  aliased: boolean;
}

/** One aggregate function over a group's rows. */
export function aggregateValue(host: QueryHost, col: AggregateColumn, rows: SRecord[]): FieldValue {
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

/** Aggregate rows (`attributes.type = AggregateResult`, no url), one per group. */
export function aggregate(
  host: QueryHost,
  groupBy: FieldPath[],
  cols: AggregateColumn[],
  rows: SRecord[],
  having: ((members: SRecord[]) => boolean) | null = null,
): QueryRecord[] {
  const groups = new Map<string, SRecord[]>();
  if (groupBy.length === 0) groups.set('', rows);
  else {
    for (const r of rows) {
      const key = JSON.stringify(groupBy.map((g) => valueAt(host, r, g)));
      let g = groups.get(key);
      if (g === undefined) {
        g = [];
        groups.set(key, g);
      }
      g.push(r);
    }
  }
  const out: QueryRecord[] = [];
  for (const members of groups.values()) {
    if (having !== null && !having(members)) continue;
    const rec: QueryRecord = { attributes: { type: 'AggregateResult' } };
    const first = members[0];
    for (const g of groupBy) rec[g.field.name] = first === undefined ? null : valueAt(host, first, g);
    for (const c of cols) rec[c.alias] = aggregateValue(host, c, members);
    out.push(rec);
  }
  return out;
}
