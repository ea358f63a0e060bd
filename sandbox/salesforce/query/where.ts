import type {
  ConditionWithValueQuery,
  LiteralType,
  ValueCondition,
  ValueQueryCondition,
  WhereClause,
} from '@jetstreamapp/soql-parser-js';
import { normalizeId } from '../org/ids.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { FieldDescribe, FieldValue, SRecord } from '../org/types.ts';
import { dateLiteralRange, toMs } from './dates.ts';
import { columnOf, located, SoqlError } from './errors.ts';
import { type FieldPath, type QueryHost, resolvePath, valueAt } from './paths.ts';

export type Predicate = (rec: SRecord) => boolean;

type Token = { k: '(' | ')' | 'NOT' | 'AND' | 'OR' } | { k: 'C'; c: ConditionWithValueQuery };

type Literal =
  | { kind: 'null' }
  | { kind: 'str'; v: string }
  | { kind: 'num'; v: number }
  | { kind: 'bool'; v: boolean }
  | { kind: 'date'; v: string }
  | { kind: 'datetime'; ms: number }
  | { kind: 'range'; start: number; end: number };

/** Runs a semi-join subquery (`Id IN (SELECT AccountId FROM Contact)`) and gives its first column's values. */
export type SubqueryRunner = (query: ValueQueryCondition['valueQuery']) => FieldValue[];

const isCondition = (left: unknown): left is ConditionWithValueQuery =>
  typeof left === 'object' && left !== null && ('field' in left || 'fn' in left);

/**
 * The parser gives a right-leaning chain with parenthesis counts on the conditions; flattening it
 * to tokens and parsing those again restores the grouping the query wrote.
 */
function flatten(w: WhereClause, out: Token[]): void {
  const left = w.left as unknown;
  if (!isCondition(left)) {
    const open =
      typeof left === 'object' && left !== null && 'openParen' in left ? Number(left.openParen) : 0;
    for (let i = 0; i < open; i++) out.push({ k: '(' });
  } else {
    for (let i = 0; i < (left.openParen ?? 0); i++) out.push({ k: '(' });
    out.push({ k: 'C', c: left });
    const close = 'closeParen' in left ? Number(left.closeParen ?? 0) : 0;
    for (let i = 0; i < close; i++) out.push({ k: ')' });
  }
  if ('operator' in w && 'right' in w) {
    out.push({ k: w.operator === 'NOT' ? 'NOT' : w.operator === 'OR' ? 'OR' : 'AND' });
    flatten(w.right, out);
  }
}

function unquote(s: string): string {
  const body = s.startsWith("'") && s.endsWith("'") ? s.slice(1, -1) : s;
  return body.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(Number.parseInt(c.slice(1), 16));
    const map: Record<string, string> = {
      n: '\n',
      N: '\n',
      r: '\r',
      R: '\r',
      t: '\t',
      T: '\t',
      b: '\b',
      B: '\b',
      f: '\f',
      F: '\f',
      "'": "'",
      '"': '"',
      '\\': '\\',
    };
    return map[c] ?? `\\${c}`;
  });
}

function literal(soql: string, raw: string, type: LiteralType | undefined, n: number | undefined): Literal {
  switch (type) {
    case 'NULL':
      return { kind: 'null' };
    case 'BOOLEAN':
      return { kind: 'bool', v: raw.toUpperCase() === 'TRUE' };
    case 'INTEGER':
    case 'DECIMAL':
      return { kind: 'num', v: Number(raw) };
    case 'INTEGER_WITH_CURRENCY_PREFIX':
    case 'DECIMAL_WITH_CURRENCY_PREFIX':
      return { kind: 'num', v: Number(raw.replace(/^[A-Z]{3}/, '')) };
    case 'DATE':
      return { kind: 'date', v: raw };
    case 'DATETIME':
      return {
        kind: 'datetime',
        ms: toMs(raw.replace(/Z$/, '+0000').replace(/([+-]\d{2}):(\d{2})$/, '$1$2')),
      };
    case 'DATE_LITERAL':
    case 'DATE_N_LITERAL': {
      const name = raw.split(':')[0] ?? raw;
      const range = dateLiteralRange(name, n);
      if (range === null) {
        throw new SoqlError(
          'MALFORMED_QUERY',
          located(soql, soql.indexOf(raw) + 1, `unexpected token: '${raw}'`),
        );
      }
      return { kind: 'range', start: range[0], end: range[1] };
    }
    default:
      return { kind: 'str', v: unquote(raw) };
  }
}

const lower = (v: FieldValue): string => String(v).toLowerCase();

function isTemporal(f: FieldDescribe): boolean {
  return f.type === 'date' || f.type === 'datetime';
}

function equals(f: FieldDescribe, v: FieldValue, lit: Literal): boolean {
  if (lit.kind === 'null') return v === null;
  if (v === null) return false;
  switch (lit.kind) {
    case 'range': {
      const ms = toMs(String(v));
      return ms >= lit.start && ms < lit.end;
    }
    case 'date':
      return f.type === 'datetime' ? String(v).slice(0, 10) === lit.v : String(v) === lit.v;
    case 'datetime':
      return toMs(String(v)) === lit.ms;
    case 'num':
      return Number(v) === lit.v;
    case 'bool':
      return v === lit.v;
    case 'str':
      if (f.type === 'id' || f.type === 'reference') return normalizeId(lit.v) === v;
      if (typeof v === 'boolean') return String(v) === lit.v.toLowerCase();
      if (typeof v === 'number') return v === Number(lit.v);
      return lower(v) === lit.v.toLowerCase();
  }
}

/** Ordering against a literal; null when either side has no order (null value). */
function compare(f: FieldDescribe, v: FieldValue, lit: Literal): number | null {
  if (v === null || lit.kind === 'null' || lit.kind === 'bool') return null;
  switch (lit.kind) {
    case 'num':
      return Number(v) - lit.v;
    case 'date':
      return isTemporal(f) ? toMs(String(v)) - toMs(lit.v) : String(v).localeCompare(lit.v);
    case 'datetime':
      return toMs(String(v)) - lit.ms;
    case 'range':
      return null;
    case 'str': {
      if (typeof v === 'number') return v - Number(lit.v);
      const a = lower(v);
      const b = lit.v.toLowerCase();
      return a < b ? -1 : a > b ? 1 : 0;
    }
  }
}

function likeRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) {
      re += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i');
}

const TEXT_TYPES = new Set([
  'string',
  'textarea',
  'email',
  'phone',
  'url',
  'picklist',
  'multipicklist',
  'combobox',
  'encryptedstring',
]);
const NUMBER_TYPES: Record<string, string> = {
  int: 'integer',
  long: 'long',
  double: 'double',
  currency: 'currency',
  percent: 'double',
};

/**
 * Salesforce checks a filter's literal against the field's type before running the query
 * (`Name = 5`, `NumberOfEmployees = '5'`, `Id = 'x'` are INVALID_QUERY_FILTER_OPERATOR).
 */
function checkLiteral(soql: string, f: FieldDescribe, raw: string, lit: Literal): void {
  if (lit.kind === 'null') return;
  const fail = (reason: string): never => {
    const where = soql.toLowerCase().indexOf('where');
    throw new SoqlError(
      'INVALID_QUERY_FILTER_OPERATOR',
      located(soql, columnOf(soql, raw, Math.max(0, where)), reason),
    );
  };
  const typed = (type: string, quoted: boolean) =>
    fail(
      `value of filter criterion for field '${f.name}' must be of type ${type} and should ${quoted ? '' : 'not '}be enclosed in quotes`,
    );
  if (f.type === 'id' || f.type === 'reference') {
    if (lit.kind !== 'str') typed('string', true);
    else if (normalizeId(lit.v) === null && lit.v !== '') fail(`invalid ID field: ${lit.v}`);
    return;
  }
  if (TEXT_TYPES.has(f.type)) {
    if (lit.kind !== 'str') typed('string', true);
    return;
  }
  const numeric = NUMBER_TYPES[f.type];
  if (numeric !== undefined && lit.kind !== 'num') typed(numeric, false);
  if (f.type === 'boolean' && lit.kind !== 'bool') typed('boolean', false);
  if (f.type === 'date' && lit.kind !== 'date' && lit.kind !== 'range') typed('date', false);
  if (f.type === 'datetime' && lit.kind !== 'datetime' && lit.kind !== 'range') typed('dateTime', false);
}

/** IN lists of plain strings as a set (2 000-id lists are common: collections retrieve). */
function inSet(f: FieldDescribe, lits: Literal[]): Set<string> | null {
  if (!lits.every((l) => l.kind === 'str')) return null;
  if (f.type === 'id' || f.type === 'reference') {
    return new Set(lits.map((l) => normalizeId((l as { v: string }).v) ?? '\u0000'));
  }
  const textual = ['string', 'textarea', 'email', 'phone', 'url', 'picklist', 'combobox', 'encryptedstring'];
  if (!textual.includes(f.type)) return null;
  return new Set(lits.map((l) => (l as { v: string }).v.toLowerCase()));
}

function compileCondition(
  host: QueryHost,
  soql: string,
  root: ObjectMeta,
  c: ConditionWithValueQuery,
  sub: SubqueryRunner,
): Predicate {
  if (!('field' in c)) {
    throw new SoqlError('MALFORMED_QUERY', located(soql, 1, 'unexpected token: function in WHERE clause'));
  }
  const path: FieldPath = resolvePath(host, soql, root, c.field);
  const f = path.field;
  const op = c.operator.toUpperCase();
  const get = (rec: SRecord) => valueAt(host, rec, path);
  if ('valueQuery' in c) {
    const values = new Set(sub(c.valueQuery).map((v) => (v === null ? null : String(v))));
    const negate = op === 'NOT IN';
    return (rec) => {
      const v = get(rec);
      return values.has(v === null ? null : String(v)) !== negate;
    };
  }
  const vc = c as ValueCondition & { dateLiteralVariable?: number | number[] };
  const rawValues = Array.isArray(vc.value) ? vc.value : [vc.value];
  const types = Array.isArray(vc.literalType) ? vc.literalType : rawValues.map(() => vc.literalType);
  const ns = Array.isArray(vc.dateLiteralVariable)
    ? vc.dateLiteralVariable
    : rawValues.map(() => vc.dateLiteralVariable as number | undefined);
  const lits = rawValues.map((raw, i) => literal(soql, raw, types[i] as LiteralType | undefined, ns[i]));
  for (const [i, l] of lits.entries()) checkLiteral(soql, f, rawValues[i] ?? '', l);
  const lit = lits[0] ?? { kind: 'null' as const };
  switch (op) {
    case '=':
      return (rec) => equals(f, get(rec), lit);
    case '!=':
    case '<>':
      return (rec) => !equals(f, get(rec), lit);
    case 'IN':
    case 'NOT IN': {
      const fast = inSet(f, lits);
      if (fast !== null) {
        const negate = op === 'NOT IN';
        const ids = f.type === 'id' || f.type === 'reference';
        return (rec) => {
          const v = get(rec);
          const hit = v !== null && fast.has(ids ? String(v) : String(v).toLowerCase());
          return hit !== negate;
        };
      }
      break;
    }
  }
  switch (op) {
    case 'IN':
      return (rec) => {
        const v = get(rec);
        return lits.some((l) => equals(f, v, l));
      };
    case 'NOT IN':
      return (rec) => {
        const v = get(rec);
        return !lits.some((l) => equals(f, v, l));
      };
    case 'LIKE': {
      const re = likeRegex(lit.kind === 'str' ? lit.v : '');
      return (rec) => {
        const v = get(rec);
        return v !== null && re.test(String(v));
      };
    }
    case 'INCLUDES':
    case 'EXCLUDES': {
      const sets = lits.map((l) => (l.kind === 'str' ? l.v.toLowerCase().split(';') : []));
      const includes = (rec: SRecord) => {
        const v = get(rec);
        if (v === null) return false;
        const have = new Set(String(v).toLowerCase().split(';'));
        return sets.some((s) => s.every((x) => have.has(x)));
      };
      return op === 'INCLUDES' ? includes : (rec) => !includes(rec);
    }
    case '<':
    case '>':
    case '<=':
    case '>=': {
      if (lit.kind === 'range') {
        const { start, end } = lit;
        return (rec) => {
          const v = get(rec);
          if (v === null) return false;
          const ms = toMs(String(v));
          return op === '<' ? ms < start : op === '>' ? ms >= end : op === '<=' ? ms < end : ms >= start;
        };
      }
      return (rec) => {
        const d = compare(f, get(rec), lit);
        if (d === null) return false;
        return op === '<' ? d < 0 : op === '>' ? d > 0 : op === '<=' ? d <= 0 : d >= 0;
      };
    }
    default:
      throw new SoqlError(
        'INVALID_QUERY_FILTER_OPERATOR',
        located(soql, 1, `invalid operator: ${c.operator}`),
      );
  }
}

/** A predicate for a WHERE clause, or null when there is none. */
export function compileWhere(
  host: QueryHost,
  soql: string,
  root: ObjectMeta,
  where: WhereClause | undefined,
  sub: SubqueryRunner,
): Predicate | null {
  if (where === undefined) return null;
  const tokens: Token[] = [];
  flatten(where, tokens);
  let i = 0;
  const peek = () => tokens[i];
  const fail = (): never => {
    throw new SoqlError(
      'MALFORMED_QUERY',
      located(soql, soql.toLowerCase().indexOf('where') + 1, 'unexpected token in WHERE clause'),
    );
  };
  const primary = (): Predicate => {
    const t = tokens[i++];
    if (t === undefined) return fail();
    if (t.k === 'NOT') {
      const inner = primary();
      return (rec) => !inner(rec);
    }
    if (t.k === '(') {
      const inner = orExpr();
      if (tokens[i++]?.k !== ')') fail();
      return inner;
    }
    if (t.k === 'C') return compileCondition(host, soql, root, t.c, sub);
    return fail();
  };
  const andExpr = (): Predicate => {
    const parts = [primary()];
    while (peek()?.k === 'AND') {
      i++;
      parts.push(primary());
    }
    return parts.length === 1 ? (parts[0] as Predicate) : (rec) => parts.every((p) => p(rec));
  };
  const orExpr = (): Predicate => {
    const parts = [andExpr()];
    while (peek()?.k === 'OR') {
      i++;
      parts.push(andExpr());
    }
    return parts.length === 1 ? (parts[0] as Predicate) : (rec) => parts.some((p) => p(rec));
  };
  const pred = orExpr();
  if (i !== tokens.length) fail();
  return pred;
}
