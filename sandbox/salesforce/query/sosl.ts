import type { Org } from '../org/index.ts';
import type { ObjectMeta } from '../org/meta.ts';
import type { FieldDescribe, SRecord } from '../org/types.ts';
import { SoqlError } from './errors.ts';
import type { QueryRecord } from './execute.ts';

/**
 * SOSL over the org's text fields: `FIND {term} [IN ALL|NAME|EMAIL|PHONE FIELDS]
 * [RETURNING Object[(fields [WHERE …] [ORDER BY …] [LIMIT n])], …] [LIMIT n]`. A term is words
 * (`*` and `?` wildcards, "quoted phrases") joined by AND / OR / AND NOT; each word matches
 * anywhere in a field at a word start, case-insensitively, as the search index does. WHERE and
 * ORDER BY of a RETURNING clause run as SOQL on the matching records.
 */
export type SearchScope = 'ALL' | 'NAME' | 'EMAIL' | 'PHONE';

export interface SearchSpec {
  term: string;
  scope: SearchScope;
  /** No entries: every searchable object, Id only. */
  returning: Array<{ object: string; fields: string[]; where?: string; orderBy?: string; limit?: number }>;
  limit?: number;
}

/** Salesforce's answer cap per search. */
const MAX_RESULTS = 2000;
const TEXT_TYPES = new Set([
  'string',
  'textarea',
  'email',
  'phone',
  'url',
  'picklist',
  'multipicklist',
  'combobox',
]);

const malformed = (message: string) => new SoqlError('MALFORMED_SEARCH', message);

function scopeFields(meta: ObjectMeta, scope: SearchScope): FieldDescribe[] {
  return meta.fields.filter((f) => {
    if (scope === 'NAME') return f.nameField || f.name === 'Name';
    if (scope === 'EMAIL') return f.type === 'email';
    if (scope === 'PHONE') return f.type === 'phone';
    return TEXT_TYPES.has(f.type) && !f.deprecatedAndHidden;
  });
}

/** The term as a test on a record's searched text: OR of ANDs of (possibly negated) word patterns. */
function compileTerm(term: string): (text: string) => boolean {
  const tokens = term.match(/"[^"]*"|\(|\)|[^\s()"]+/g) ?? [];
  const clauses: Array<Array<{ re: RegExp; not: boolean }>> = [[]];
  let negate = false;
  for (const t of tokens) {
    const upper = t.toUpperCase();
    if (upper === 'OR') {
      clauses.push([]);
      continue;
    }
    if (upper === 'AND' || t === '(' || t === ')') continue;
    if (upper === 'NOT') {
      negate = true;
      continue;
    }
    const word = t.startsWith('"') ? t.slice(1, -1) : t;
    const body = word
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '\\S*')
      .replace(/\?/g, '\\S');
    clauses[clauses.length - 1]?.push({ re: new RegExp(`(^|[^\\p{L}\\p{N}])${body}`, 'iu'), not: negate });
    negate = false;
  }
  const usable = clauses.filter((c) => c.length > 0);
  return (text) => usable.some((c) => c.every((w) => w.re.test(text) !== w.not));
}

function checkTerm(term: string): void {
  const letters = term
    .replace(/["*?()]/g, '')
    .replace(/\b(AND|OR|NOT)\b/gi, '')
    .trim();
  if (letters.length < 2) {
    throw new SoqlError('INVALID_SEARCH', 'search term must be longer than one character');
  }
}

/** Parses a SOSL string into a search; MALFORMED_SEARCH with Salesforce's messages when it is not one. */
export function parseSosl(sosl: string): SearchSpec {
  const m = /^\s*FIND\s+(\{(?:\\.|[^}\\])*\}|'(?:\\.|[^'\\])*')\s*(.*)$/is.exec(sosl);
  if (m === null) {
    if (/^\s*FIND\b/i.test(sosl))
      throw malformed('No search term found. The search term must be enclosed in braces.');
    throw malformed(`unexpected token: '${sosl.trim().split(/\s+/)[0] ?? ''}'`);
  }
  const term = (m[1] as string).slice(1, -1).replace(/\\(.)/g, '$1');
  let rest = (m[2] as string).trim();
  let scope: SearchScope = 'ALL';
  const inMatch = /^IN\s+(ALL|NAME|EMAIL|PHONE|SIDEBAR)\s+FIELDS\b\s*/i.exec(rest);
  if (inMatch !== null) {
    const s = (inMatch[1] as string).toUpperCase();
    scope = s === 'SIDEBAR' ? 'ALL' : (s as SearchScope);
    rest = rest.slice(inMatch[0].length);
  }
  const returning: SearchSpec['returning'] = [];
  const ret = /^RETURNING\s+/i.exec(rest);
  if (ret !== null) {
    rest = rest.slice(ret[0].length);
    for (;;) {
      const obj = /^(\w+)\s*/.exec(rest);
      if (obj === null) throw malformed(`unexpected token: '${rest.split(/\s+/)[0] ?? '<EOF>'}'`);
      rest = rest.slice(obj[0].length);
      const entry: SearchSpec['returning'][number] = { object: obj[1] as string, fields: [] };
      if (rest.startsWith('(')) {
        let depth = 0;
        let end = -1;
        for (let i = 0; i < rest.length; i++) {
          if (rest[i] === "'") {
            i = rest.indexOf("'", i + 1);
            if (i < 0) break;
            continue;
          }
          if (rest[i] === '(') depth++;
          if (rest[i] === ')' && --depth === 0) {
            end = i;
            break;
          }
        }
        if (end < 0) throw malformed("unexpected token: '<EOF>'");
        const inner = rest.slice(1, end).trim();
        rest = rest.slice(end + 1).trim();
        const parts = /^(.*?)(?:\s+WHERE\s+(.*?))?(?:\s+ORDER\s+BY\s+(.*?))?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(
          inner,
        );
        entry.fields = (parts?.[1] ?? '')
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== '');
        if (entry.fields.length === 0 && inner !== '')
          throw malformed(`unexpected token: '${inner.split(/\s+/)[0]}'`);
        if (parts?.[2] !== undefined) entry.where = parts[2];
        if (parts?.[3] !== undefined) entry.orderBy = parts[3];
        if (parts?.[4] !== undefined) entry.limit = Number(parts[4]);
      }
      returning.push(entry);
      if (rest.startsWith(',')) {
        rest = rest.slice(1).trim();
        continue;
      }
      break;
    }
  }
  const limit = /^LIMIT\s+(\d+)\s*/i.exec(rest);
  const spec: SearchSpec = { term, scope, returning };
  if (limit !== null) {
    spec.limit = Number(limit[1]);
    rest = rest.slice(limit[0].length);
  }
  // WITH clauses (WITH SNIPPET, WITH NETWORK …) change nothing here; anything else is a syntax error.
  rest = rest.replace(/^(WITH\s+\w+(\s*=\s*'[^']*'|\s*\([^)]*\))?\s*)+/i, '').trim();
  if (rest !== '') throw malformed(`unexpected token: '${rest.split(/\s+/)[0]}'`);
  return spec;
}

/** Runs a search: `searchRecords` in RETURNING order, each object's records by the query's order. */
export function runSearch(org: Org, spec: SearchSpec, version: string): QueryRecord[] {
  checkTerm(spec.term);
  const matches = compileTerm(spec.term);
  const targets: SearchSpec['returning'] =
    spec.returning.length > 0
      ? spec.returning
      : org.schema
          .all()
          .filter((m) => m.describe.searchable === true && m.describe.queryable)
          .map((m) => ({ object: m.name, fields: [] }));
  const out: QueryRecord[] = [];
  const overall = Math.min(spec.limit ?? MAX_RESULTS, MAX_RESULTS);
  for (const t of targets) {
    const meta = org.object(t.object);
    if (meta === undefined) {
      throw new SoqlError(
        'INVALID_TYPE',
        `sObject type '${t.object}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`,
      );
    }
    const fields = scopeFields(meta, spec.scope);
    const hit = (rec: SRecord) =>
      rec.IsDeleted !== true &&
      matches(
        fields
          .map((f) => (rec[f.name] === null || rec[f.name] === undefined ? '' : String(rec[f.name])))
          .join('\n'),
      );
    const ids = new Set<string>();
    for (const rec of org.table(meta).rows.values()) if (hit(rec)) ids.add(String(rec.Id));
    if (ids.size === 0) continue;
    // Id is read to match the records, and kept only when asked for (or when no field list is given).
    const wantsId = t.fields.length === 0 || t.fields.some((f) => f.toLowerCase() === 'id');
    const select = wantsId
      ? t.fields.length === 0
        ? 'Id'
        : t.fields.join(', ')
      : ['Id', ...t.fields].join(', ');
    const where = t.where === undefined ? '' : ` WHERE ${t.where}`;
    const order = t.orderBy === undefined ? '' : ` ORDER BY ${t.orderBy}`;
    const picked = org
      .query(`SELECT ${select} FROM ${meta.name}${where}${order}`, { version })
      .records.filter((r) => ids.has(String(r.Id)))
      .map((r) => {
        if (wantsId) return r;
        const { Id: _id, ...rest } = r;
        return rest as QueryRecord;
      });
    for (const r of picked.slice(0, t.limit ?? MAX_RESULTS)) {
      if (out.length >= overall) return out;
      out.push(r);
    }
  }
  return out;
}
