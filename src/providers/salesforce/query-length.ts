import { ApiError } from '../../errors/index.ts';

/**
 * Salesforce's query resource is GET-only and refuses a request whose URI and headers together pass
 * 16,384 bytes (431, or 414 for the URI alone). The request's own headers (authorization, host,
 * accept, query options) take well under 2 KiB, so the URI gets the rest. SOQL's own limit is
 * 100,000 characters, but only a query that fits this URI can be sent.
 */
export const MAX_QUERY_URI_BYTES = 14_336;

/** 400 `query_too_long`, before any call, when the query's request URI would pass the limit. */
export function checkQueryUri(pathAndQuery: string, soqlLength: number): void {
  const bytes = Buffer.byteLength(pathAndQuery);
  if (bytes <= MAX_QUERY_URI_BYTES) return;
  throw queryTooLong(
    `The query is ${soqlLength} characters long, ${bytes} bytes once URL-encoded into Salesforce's query URL; Salesforce accepts a query URL of at most ${MAX_QUERY_URI_BYTES} bytes here. Shorten the query, for example by splitting a long IN list over several queries.`,
    { soql_length: soqlLength, uri_bytes: bytes, limit_bytes: MAX_QUERY_URI_BYTES },
  );
}

/** Salesforce's own 414/431 (a request URI it found too long) as the client's mistake, not a CRM failure. */
export function queryUriRefused(status: number): ApiError {
  return queryTooLong(
    `Salesforce refused the query URL as too long (HTTP ${status}). Shorten the query, for example by splitting a long IN list over several queries.`,
    { provider: 'salesforce', status },
  );
}

function queryTooLong(message: string, detail: Record<string, unknown>): ApiError {
  return new ApiError('query_too_long', message, { details: [{ path: '/data', ...detail }] });
}
