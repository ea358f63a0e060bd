import type { CrmRecord, QueryPage } from '../../domain/operations.ts';
import { ApiError } from '../../errors/index.ts';
import { parseJson } from '../client/types.ts';
import { signCursor, verifyCursor } from '../cursor.ts';
import { crmErrorFromResponse } from '../errors.ts';
import { type Org, rejected, send } from './org.ts';
import { SALESFORCE_PROFILE } from './profile.ts';

/** Records per answer; Salesforce's pages are at most `PAGE` records. */
const MAX_RECORDS_PER_ANSWER = SALESFORCE_PROFILE.queryMaxRecordsPerAnswer;
const PAGE = SALESFORCE_PROFILE.queryPageSize;

/** Salesforce refuses a GET over 16,384 bytes of URI and headers; the headers take under 2 KiB. */
export const MAX_QUERY_URI_BYTES = 14_336;

interface SalesforcePage {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: CrmRecord[];
}

/** A cursor: its connection (`c`) and Salesforce's nextRecordsUrl (`u`). */
interface CursorPayload {
  c: string;
  u: string;
}

function queryTooLong(message: string, detail: Record<string, unknown>): ApiError {
  return new ApiError('query_too_long', message, { details: [{ path: '/data', ...detail }] });
}

/** One page of a query (at most PAGE records). */
async function page(org: Org, url: string): Promise<SalesforcePage> {
  const response = await send(org, 'query', 'query', {
    method: 'GET',
    url,
    headers: { accept: 'application/json', 'sforce-query-options': `batchSize=${PAGE}` },
    idempotent: true,
  });
  // Salesforce's own 414/431 is the client's mistake, not a CRM failure.
  if (response.status === 414 || response.status === 431) {
    throw queryTooLong(
      `Salesforce refused the query URL as too long (HTTP ${response.status}). Shorten the query, for example by splitting a long IN list over several queries.`,
      { provider: 'salesforce', status: response.status },
    );
  }
  if (response.status === 400) throw rejected(response, 'invalid_query', 'the query');
  const body = parseJson<SalesforcePage>(response);
  if (response.status !== 200 || body === undefined || !Array.isArray(body.records)) {
    throw crmErrorFromResponse('salesforce', response, 'query');
  }
  return body;
}

/** Follows pages while another fits in `max`; then a cursor, signed and bound to the connection. */
async function collect(org: Org, firstUrl: string, max: number = MAX_RECORDS_PER_ANSWER): Promise<QueryPage> {
  const records: CrmRecord[] = [];
  let url = firstUrl;
  for (;;) {
    const { totalSize, done, nextRecordsUrl: next, records: got } = await page(org, url);
    for (const r of got) records.push(r);
    if (done || next === undefined) return { totalSize, done: true, records, next_cursor: null };
    if (records.length + PAGE > max) {
      const payload: CursorPayload = { c: org.session.connectionId, u: next };
      return { totalSize, done: false, records, next_cursor: signCursor(org.cursorKey, payload) };
    }
    url = `${org.session.baseUrl}${next}`;
  }
}

/** SOQL through the REST query resource, at most `max` records an answer; 400 before any call when too long. */
export function query(org: Org, soql: string, max?: number): Promise<QueryPage> {
  const url = `${org.api}/query?q=${encodeURIComponent(soql)}`;
  const bytes = Buffer.byteLength(url) - Buffer.byteLength(org.session.baseUrl);
  if (bytes > MAX_QUERY_URI_BYTES) {
    throw queryTooLong(
      `The query is ${soql.length} characters long, ${bytes} bytes once URL-encoded into Salesforce's query URL; Salesforce accepts a query URL of at most ${MAX_QUERY_URI_BYTES} bytes here. Shorten the query, for example by splitting a long IN list over several queries.`,
      { soql_length: soql.length, uri_bytes: bytes, limit_bytes: MAX_QUERY_URI_BYTES },
    );
  }
  return collect(org, url, max);
}

/** The next answer of a query, from a cursor this connection was given. */
export function queryMore(org: Org, cursor: string): Promise<QueryPage> {
  const payload = verifyCursor<CursorPayload>(
    org.cursorKey,
    cursor,
    org.session.connectionId,
    (p) => typeof p.u === 'string' && p.u.startsWith('/services/data/'),
  );
  return collect(org, `${org.session.baseUrl}${payload.u}`);
}

/** The control characters SOQL escapes, by the letter that follows their backslash. */
const CONTROL_LETTERS = new Map([...'\n\r\t\f\b'].map((c, i) => [c, 'nrtfb'[i]]));

/** SOQL string literal, escaped in one pass (an added backslash is never escaped again): no injection. */
export function soqlString(value: string): string {
  return `'${value.replace(/[\\'"\n\r\t\f\b]/g, (c) => `\\${CONTROL_LETTERS.get(c) ?? c}`)}'`;
}

const DATE_PATTERNS = new Map([
  ['date', /^\d{4}-\d{2}-\d{2}$/],
  ['datetime', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/],
]);
export const NUMBER_TYPES = new Set(['int', 'double', 'currency', 'percent', 'long']);

/** A value as a SOQL literal for a field type, or null (a 400); unquoted literals match strict patterns. */
export function soqlLiteral(value: unknown, fieldType: string): string | null {
  const type = fieldType.toLowerCase();
  if (NUMBER_TYPES.has(type)) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    return /^-?\d+(\.\d+)?$/.test(text) ? text : null;
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return String(value);
    return value === 'true' || value === 'false' ? value : null;
  }
  const pattern = DATE_PATTERNS.get(type);
  if (pattern !== undefined) return typeof value === 'string' && pattern.test(value) ? value : null;
  if (type === 'time') return null;
  if (typeof value === 'string') return soqlString(value);
  if (typeof value === 'number') return soqlString(String(value));
  return null;
}
