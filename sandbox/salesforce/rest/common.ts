import type { FastifyReply, FastifyRequest } from 'fastify';
import { OrgError, type RecordError } from '../org/index.ts';
import { SoqlError } from '../query/errors.ts';

/** API versions the sandbox serves (Winter '11 … Summer '26). */
export const MIN_VERSION = 20;
export const MAX_VERSION = 67;
export const DATA_PREFIX = '/services/data';

export interface ApiError {
  message: string;
  errorCode: string;
  fields?: string[];
}

/** Salesforce's error body: always an array, `application/json;charset=UTF-8`. */
export function sendErrors(reply: FastifyReply, status: number, errors: ApiError[]): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .send(JSON.stringify(errors));
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json;charset=UTF-8')
    .send(JSON.stringify(body));
}

export const NOT_FOUND: ApiError = {
  errorCode: 'NOT_FOUND',
  message: 'The requested resource does not exist',
};

/** Per-record errors (`statusCode`) as a request's error array (`errorCode`). */
export function toApiErrors(errors: RecordError[]): ApiError[] {
  return errors.map((e) => ({ message: e.message, errorCode: e.statusCode, fields: e.fields }));
}

/** `v62.0` → `62.0`, or null when the sandbox does not serve that version. */
export function parseVersion(segment: string): string | null {
  const m = /^v(\d+)\.0$/.exec(segment);
  if (m === null) return null;
  const n = Number(m[1]);
  return n >= MIN_VERSION && n <= MAX_VERSION ? `${n}.0` : null;
}

/** The request's API version; answers 404 itself and returns null when it is not served. */
export function versionOf(request: FastifyRequest, reply: FastifyReply): string | null {
  const params = request.params as { version?: string };
  const v = parseVersion(params.version ?? '');
  if (v === null) sendErrors(reply, 404, [NOT_FOUND]);
  return v;
}

/** Request-level kernel failures (unknown object, bad SOQL) in the wire format; rethrows anything else. */
export function sendKernelError(reply: FastifyReply, e: unknown): FastifyReply {
  if (e instanceof OrgError || e instanceof SoqlError) {
    return sendErrors(reply, e instanceof OrgError ? e.status : 400, [
      { message: e.message, errorCode: e.errorCode },
    ]);
  }
  throw e;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Registers a route under both `path` and `path/` (Salesforce accepts either; Fastify tells them apart). */
export function bothSlashes(path: string): string[] {
  return path.endsWith('/') ? [path, path.slice(0, -1)] : [path, `${path}/`];
}

export const UNABLE_TO_LOCK_ROW = (id = ''): RecordError => ({
  statusCode: 'UNABLE_TO_LOCK_ROW',
  message: `unable to obtain exclusive access to this record or 1 records: ${id}`.trimEnd(),
  fields: [],
});
