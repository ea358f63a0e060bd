import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SRecord } from '../org/index.ts';
import { sendErrors } from './common.ts';

/**
 * Conditional requests as Salesforce documents them
 * (https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_rest_conditional_requests.htm):
 * - sObject Rows of **Account** records carry an `ETag`; `If-Match` (a list of ETags) lets a GET or
 *   PATCH through only on a match, else 412; `If-None-Match` answers a match with 304 on GET and
 *   412 on PATCH. `If-Modified-Since` / `If-Unmodified-Since` compare with `LastModifiedDate`
 *   (304 / 412). Other objects ignore these headers, as the page says they apply to Account only.
 * - Describe and describe global: `If-Modified-Since` (304) and `If-Unmodified-Since` (412) against
 *   the time metadata last changed.
 * - A malformed `If-Match`, `If-None-Match` or `If-Unmodified-Since` on a PATCH is a 400. DELETE
 *   ignores them all.
 */
const WITH_ETAG = new Set(['Account']);

/** The record's ETag: a hash of its identity and modification stamp, in Salesforce's `"…--gzip"` form. */
export function etagOf(record: SRecord): string {
  const hash = createHash('sha256')
    .update(`${String(record.Id)}|${String(record.SystemModstamp)}`)
    .digest('base64');
  return `"${hash}--gzip"`;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

/** `"a", "b"` or `*` → the tags; undefined when the value is not a list of quoted tags. */
function tagList(value: string): string[] | undefined {
  if (value === '*') return ['*'];
  const tags = value.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.every((t) => /^".*"$/.test(t)) ? tags : undefined;
}

const dateOf = (value: string): number | undefined => {
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
};

/** Sends 412 and says the request was answered. */
function preconditionFailed(reply: FastifyReply): true {
  sendErrors(reply, 412, [
    { errorCode: 'PRECONDITION_FAILED', message: 'The precondition for this request was not met.' },
  ]);
  return true;
}

/** Sends 400 for a malformed conditional header and says the request was answered. */
function badHeader(reply: FastifyReply, name: string): true {
  sendErrors(reply, 400, [
    { errorCode: 'INVALID_HEADER_TYPE', message: `Invalid value for the ${name} header.` },
  ]);
  return true;
}

/**
 * Checks a record request's preconditions and sets the ETag; true when it answered (304, 400, 412).
 * Second precision for dates, as HTTP dates carry.
 */
export function recordPreconditions(
  request: FastifyRequest,
  reply: FastifyReply,
  objectName: string,
  record: SRecord,
): boolean {
  if (!WITH_ETAG.has(objectName)) return false;
  const write = request.method === 'PATCH';
  const etag = etagOf(record);
  const modified = Math.floor(Date.parse(String(record.LastModifiedDate)) / 1000) * 1000;
  const ifMatch = header(request, 'if-match');
  const ifNoneMatch = header(request, 'if-none-match');
  const unmodifiedSince = header(request, 'if-unmodified-since');
  const modifiedSince = header(request, 'if-modified-since');
  const matchTags = ifMatch === undefined ? undefined : tagList(ifMatch);
  const noneTags = ifNoneMatch === undefined ? undefined : tagList(ifNoneMatch);
  const unmodified = unmodifiedSince === undefined ? undefined : dateOf(unmodifiedSince);
  if (write && ifMatch !== undefined && matchTags === undefined) return badHeader(reply, 'If-Match');
  if (write && ifNoneMatch !== undefined && noneTags === undefined) return badHeader(reply, 'If-None-Match');
  if (write && unmodifiedSince !== undefined && unmodified === undefined)
    return badHeader(reply, 'If-Unmodified-Since');
  const hit = (tags: string[]) => tags.includes('*') || tags.includes(etag);
  if (matchTags !== undefined && !hit(matchTags)) return preconditionFailed(reply);
  if (unmodified !== undefined && modified > unmodified) return preconditionFailed(reply);
  if (noneTags !== undefined && hit(noneTags)) {
    if (write) return preconditionFailed(reply);
    reply.header('etag', etag).code(304).send();
    return true;
  }
  const since = modifiedSince === undefined || write ? undefined : dateOf(modifiedSince);
  if (since !== undefined && noneTags === undefined && modified <= since) {
    reply.header('etag', etag).code(304).send();
    return true;
  }
  if (!write) reply.header('etag', etag);
  return false;
}

/** After a write: the record's new ETag on the answer (Account only). */
export function setRecordEtag(reply: FastifyReply, objectName: string, record: SRecord | undefined): void {
  if (record !== undefined && WITH_ETAG.has(objectName)) reply.header('etag', etagOf(record));
}

/** Describe and describe global: 304 when metadata is unchanged since, 412 when changed since; true when answered. */
export function describePreconditions(
  request: FastifyRequest,
  reply: FastifyReply,
  lastModified: Date,
): boolean {
  reply.header('last-modified', lastModified.toUTCString());
  const since = dateOf(header(request, 'if-modified-since') ?? '');
  if (since !== undefined && lastModified.getTime() <= since) {
    reply.code(304).send();
    return true;
  }
  const unmodified = dateOf(header(request, 'if-unmodified-since') ?? '');
  if (unmodified !== undefined && lastModified.getTime() > unmodified) return preconditionFailed(reply);
  return false;
}
