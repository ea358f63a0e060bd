import type { PropertyDefinition, StoredRecord } from '../model/types.ts';
import { parseInstant } from '../model/values.ts';

export const OPERATORS = [
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Filter {
  propertyName: string;
  operator: Operator;
  value?: string;
  highValue?: string;
  values?: string[];
}

type Kind = 'number' | 'time' | 'enum' | 'text';

function kindOf(def: Readonly<PropertyDefinition> | undefined): Kind {
  switch (def?.type) {
    case 'number':
      return 'number';
    case 'date':
    case 'datetime':
      return 'time';
    case 'enumeration':
    case 'bool':
      return 'enum';
    default:
      return 'text';
  }
}

/** Comparable form of a value: numbers and instants as numbers; text lower-cased (HubSpot compares it case-insensitively); enumerations as they are. */
function key(kind: Kind, raw: string): number | string | undefined {
  if (kind === 'number') {
    const n = Number(raw);
    return raw.trim() === '' || Number.isNaN(n) ? undefined : n;
  }
  if (kind === 'time') {
    const d = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? new Date(`${raw}T00:00:00.000Z`) : parseInstant(raw);
    return d?.getTime();
  }
  return kind === 'enum' ? raw : raw.toLowerCase();
}

const tokens = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}@._-]+/u)
    .filter((t) => t !== '');

/** CONTAINS_TOKEN: a whole token of the value, `*` as a wildcard (documented). */
function containsToken(value: string, pattern: string): boolean {
  const p = pattern.toLowerCase();
  if (p.includes('*')) {
    const re = new RegExp(
      `^${p
        .split('*')
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(value.toLowerCase()) || tokens(value).some((t) => re.test(t));
  }
  return tokens(value).includes(p) || value.toLowerCase() === p;
}

function compare(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when the record passes one filter. Unset values only pass NEQ, NOT_IN, NOT_HAS_PROPERTY and NOT_CONTAINS_TOKEN. */
export function matches(
  record: StoredRecord,
  filter: Filter,
  def: Readonly<PropertyDefinition> | undefined,
): boolean {
  const raw = filter.propertyName === 'id' ? record.id : record.properties[filter.propertyName];
  const present = raw !== undefined && raw !== '';
  const op = filter.operator;
  if (op === 'HAS_PROPERTY') return present;
  if (op === 'NOT_HAS_PROPERTY') return !present;
  if (op === 'NEQ' || op === 'NOT_IN' || op === 'NOT_CONTAINS_TOKEN') {
    if (!present) return true;
  } else if (!present) {
    return false;
  }
  const kind = kindOf(def);
  const v = key(kind, raw as string);
  if (v === undefined) return false;
  const want = (s: string | undefined) => (s === undefined ? undefined : key(kind, s));
  switch (op) {
    case 'EQ':
    case 'NEQ': {
      const w = want(filter.value);
      const eq = w !== undefined && compare(v, w) === 0;
      return op === 'EQ' ? eq : !eq;
    }
    case 'LT':
    case 'LTE':
    case 'GT':
    case 'GTE': {
      const w = want(filter.value);
      if (w === undefined) return false;
      const c = compare(v, w);
      return op === 'LT' ? c < 0 : op === 'LTE' ? c <= 0 : op === 'GT' ? c > 0 : c >= 0;
    }
    case 'BETWEEN': {
      const lo = want(filter.value);
      const hi = want(filter.highValue);
      return lo !== undefined && hi !== undefined && compare(v, lo) >= 0 && compare(v, hi) <= 0;
    }
    case 'IN':
    case 'NOT_IN': {
      const inList = (filter.values ?? []).some((s) => {
        const w = key(kind, s);
        return w !== undefined && compare(v, w) === 0;
      });
      return op === 'IN' ? inList : !inList;
    }
    case 'CONTAINS_TOKEN':
      return containsToken(raw as string, filter.value ?? '');
    case 'NOT_CONTAINS_TOKEN':
      return !containsToken(raw as string, filter.value ?? '');
  }
}

/** `query`: every word must start a token of one of the type's searchable properties. */
export function matchesQuery(record: StoredRecord, query: string, fields: string[]): boolean {
  const words = tokens(query);
  if (words.length === 0) return true;
  const haystack = fields.flatMap((f) => tokens(record.properties[f] ?? ''));
  return words.every((w) => haystack.some((t) => t.startsWith(w)));
}

/** Sort order of two records on one property; unset values last. */
export function sortValue(
  record: StoredRecord,
  name: string,
  def: Readonly<PropertyDefinition> | undefined,
): number | string | undefined {
  const raw = name === 'id' ? record.id : record.properties[name];
  if (raw === undefined || raw === '') return undefined;
  return key(kindOf(def), raw);
}
