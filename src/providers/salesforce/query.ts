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

/**
 * Salesforce's query resource is GET-only and refuses a request whose URI and headers together pass
 * 16,384 bytes (431, or 414 for the URI alone). The request's own headers (authorization, host,
 * accept, query options) take well under 2 KiB, so the URI gets the rest. SOQL's own limit is
 * 100,000 characters, but only a query that fits this URI can be sent.
 */
export const MAX_QUERY_URI_BYTES = 14_336;

interface SalesforcePage {
  totalSize: number;
  done: boolean;
  nextRecordsUrl?: string;
  records: CrmRecord[];
}

interface CursorPayload {
  /** Connection the cursor belongs to. */
  c: string;
  /** Salesforce's nextRecordsUrl. */
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
  // Salesforce's own 414/431 (a request URI it found too long) is the client's mistake, not a CRM failure.
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

/**
 * Pages of 2,000 (`Sforce-Query-Options: batchSize=2000`) are followed while another full page
 * still fits in `max` records (10,000 per answer); then the answer carries a cursor: Salesforce's
 * locator bound to the connection and signed, so it can be neither forged nor used from another
 * connection.
 */
async function collect(org: Org, firstUrl: string, max: number = MAX_RECORDS_PER_ANSWER): Promise<QueryPage> {
  const records: CrmRecord[] = [];
  let url: string | undefined = firstUrl;
  let totalSize = 0;
  while (url !== undefined) {
    const got = await page(org, url);
    totalSize = got.totalSize;
    for (const r of got.records) records.push(r);
    url =
      got.done || got.nextRecordsUrl === undefined
        ? undefined
        : `${org.session.baseUrl}${got.nextRecordsUrl}`;
    if (url !== undefined && records.length + PAGE > max) {
      const payload: CursorPayload = { c: org.session.connectionId, u: got.nextRecordsUrl as string };
      return { totalSize, done: false, records, next_cursor: signCursor(org.cursorKey, payload) };
    }
  }
  return { totalSize, done: true, records, next_cursor: null };
}

/**
 * SOQL through the REST query resource; 400 `query_too_long`, before any call, when its URI would
 * pass the limit. `max` bounds the records of the answer (every record a query selects: Infinity).
 */
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

/**
 * SOQL string literal, escaped as Salesforce documents (SOQL reference, "Quoted String Escape
 * Sequences"): backslash, the quote characters and control characters, in one pass, so a backslash
 * added here is never escaped again. Anything the caller sends stays inside the literal, so it
 * cannot end the literal and add SOQL of its own.
 */
export function soqlString(value: string): string {
  return `'${value.replace(/[\\'"\n\r\t\f\b]/g, (c) => `\\${CONTROL_LETTERS.get(c) ?? c}`)}'`;
}

export const NUMBER_TYPES = new Set(['int', 'double', 'currency', 'percent', 'long']);
const QUOTED_EXCEPTIONS = new Set(['date', 'datetime', 'time', 'boolean']);

/**
 * A value as a SOQL literal for a field of the given describe type, or null when the value
 * cannot be one (then the caller answers 400 instead of building a query). Numbers, booleans,
 * dates and datetimes are unquoted in SOQL, so they are checked against strict patterns.
 */
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
  if (type === 'date') {
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
  }
  if (type === 'datetime') {
    return typeof value === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(value)
      ? value
      : null;
  }
  if (QUOTED_EXCEPTIONS.has(type)) return null;
  if (typeof value === 'string') return soqlString(value);
  if (typeof value === 'number') return soqlString(String(value));
  return null;
}
