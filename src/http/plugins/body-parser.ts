import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../errors/index.ts';
import { AdmissionQueue } from '../../lib/admission.ts';
import { MAX_DISTINCT_FIELDS } from '../../operations/field-bounds.ts';

/** No API body needs over ~6 levels; much deeper JSON overflows recursive walkers (JSON.stringify). */
const MAX_JSON_DEPTH = 32;

/** Keys in one JSON object: a record names at most MAX_DISTINCT_FIELDS fields, no other body more. */
const MAX_OBJECT_KEYS = MAX_DISTINCT_FIELDS;

/**
 * Distinct keys in one body: JSON.parse gives each new key set a shape of its own, so 100 000
 * distinct names cost it far more than the same bytes of repeated names. A request may name at
 * most MAX_DISTINCT_FIELDS fields (case-insensitively), so four times that is never legitimate.
 */
const MAX_DISTINCT_KEYS = 4 * MAX_DISTINCT_FIELDS;

/** Bodies from this many bytes (or of unknown length) wait for a place among the large bodies. */
const LARGE_BODY_BYTES = 256 * 1024;

/** Large-body bytes in memory at once (a heavier one enters alone); parsed, a body is many times larger. */
const LARGE_BODIES_AT_ONCE = 2 * 1024 * 1024;

/** Routes whose body is held until `releaseBody`: writes that may run as jobs. */
const HELD_BY = new Set<string | undefined>(['insert', 'update', 'delete']);

declare module 'fastify' {
  interface FastifyRequest {
    /** Leaves the request's place among the large bodies (see `releaseBody`); null when it holds none. */
    leaveBodyPlace: (() => void) | null;
  }
}

/**
 * Fastify's own JSON parser, plus: a blank body is `undefined`, and a body too deep or too wide is
 * refused (400). A large body waits unread in its socket for a place among the large bodies, kept
 * until it is parsed, or for a batch write until `releaseBody`.
 */
export const jsonParser = fp(
  async (app: FastifyInstance, { bodyLimit }: { bodyLimit: number }) => {
    const places = new AdmissionQueue(LARGE_BODIES_AT_ONCE);
    const parse = app.getDefaultJsonParser('error', 'error');
    app.decorateRequest('leaveBodyPlace', null);
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => {
      const answer = (error: Error | null, value?: unknown) => {
        if (error !== null || !HELD_BY.has(request.routeOptions.schema?.['x-crm-operation']))
          releaseBody(request);
        done(error, value);
      };
      if (/^\s*$/.test(text as string)) return answer(null, undefined);
      try {
        checkShape(text as string);
      } catch (refusal) {
        return answer(refusal as Error);
      }
      parse(request, text as string, answer);
    });

    // The idle timer is off while the service holds the body back; the whole-request deadline still runs.
    app.addHook('preParsing', async (request, _reply, payload) => {
      const weight = bodyWeight(request, bodyLimit);
      if (weight === 0 || request.routeOptions.schema?.['x-crm-operation'] === 'passthrough') return payload;
      const socket = request.raw.socket;
      const giveUp = new AbortController();
      // A client gone while its body waits gives up its turn; gone after sending its whole body, it
      // gets no onResponse: its socket's close frees the place.
      const gone = () => {
        giveUp.abort();
        releaseBody(request);
      };
      socket.once('close', gone);
      // Injected requests (tests) have a stand-in socket without timers.
      const idleMs = socket.timeout;
      const waits = !places.fits(weight) && idleMs !== undefined;
      if (waits) socket.setTimeout(0);
      const leave = await places.enter(weight, giveUp.signal);
      if (waits) socket.setTimeout(idleMs);
      if (leave === undefined) throw new Error('client went away while its body waited');
      request.leaveBodyPlace = () => {
        socket.removeListener('close', gone);
        leave();
      };
      return payload;
    });
    app.addHook('onResponse', (request, _reply, done) => {
      releaseBody(request);
      done();
    });
  },
  { name: 'json-parser' },
);

/** The bytes a body is admitted for: its declared length, the limit for a chunked one, 0 when small. */
function bodyWeight(request: FastifyRequest, bodyLimit: number): number {
  const declared = Number(request.headers['content-length']);
  if (Number.isNaN(declared)) return request.headers['transfer-encoding'] === undefined ? 0 : bodyLimit;
  return declared >= LARGE_BODY_BYTES ? Math.min(declared, bodyLimit) : 0;
}

/** Gives the request's place among the large bodies to the next one; safe to call again, on any request. */
export function releaseBody(request: FastifyRequest): void {
  const leave = request.leaveBodyPlace;
  if (leave === null) return;
  request.leaveBodyPlace = null;
  leave();
}

/** Refuses too deep or wide JSON, or too many distinct keys, all slow for JSON.parse, in one pass; invalid JSON is left to the parse. */
function checkShape(text: string): void {
  const isArray: boolean[] = [false];
  /** An array's current index, an object's key count. */
  const count: number[] = [0];
  /** An object's current key, as [start, end) of its string in the text. */
  const keyAt: number[] = [0];
  const keyEnd: number[] = [0];
  // Keys are counted as distinct only when they differ from the key at the same place in the
  // previous object at that depth: records of one batch mostly repeat one key order.
  const previous: number[][] = [[]];
  const current: number[][] = [[]];
  const distinct = new Set<string>();
  let depth = 0;
  let expectsKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return;
      if (expectsKey) {
        const keys = (count[depth] ?? 0) + 1;
        if (keys > MAX_OBJECT_KEYS) throw tooWide();
        count[depth] = keys;
        keyAt[depth] = i;
        keyEnd[depth] = end + 1;
        expectsKey = false;
        const seenAt = previous[depth]?.[keys - 1];
        if (seenAt === undefined || !sameKey(text, seenAt, i, end)) {
          distinct.add(text.slice(i + 1, end));
          if (distinct.size > MAX_DISTINCT_KEYS) throw tooManyKeys();
        }
        current[depth]?.push(i);
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === MAX_JSON_DEPTH) throw tooDeep(pointer(text, depth, isArray, count, keyAt, keyEnd));
      depth++;
      isArray[depth] = c === OPEN_ARRAY;
      count[depth] = 0;
      expectsKey = c === OPEN_OBJECT;
      if (expectsKey) {
        // This object's keys become the ones the next object at this depth is compared with.
        const done = current[depth] ?? [];
        current[depth] = previous[depth] ?? [];
        previous[depth] = done;
        (current[depth] as number[]).length = 0;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      expectsKey = false;
    } else if (c === COMMA) {
      if (isArray[depth] === true) count[depth] = (count[depth] ?? 0) + 1;
      else expectsKey = true;
    }
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** The key whose opening quote is at `at` reads as the one from `from` to the closing quote at `end`. */
function sameKey(text: string, at: number, from: number, end: number): boolean {
  for (let k = 0; k <= end - from; k++)
    if (text.charCodeAt(at + k) !== text.charCodeAt(from + k)) return false;
  return true;
}

/** The quote at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
  return slashes % 2 === 1;
}

/** JSON pointer of the container about to open: each enclosing object's key, each array's index. */
function pointer(
  text: string,
  depth: number,
  isArray: boolean[],
  count: number[],
  keyAt: number[],
  keyEnd: number[],
): string {
  const keys: string[] = [];
  for (let d = 1; d <= depth; d++) {
    let key = String(count[d] ?? 0);
    if (isArray[d] !== true) {
      const literal = text.slice(keyAt[d], keyEnd[d]);
      try {
        key = String(JSON.parse(literal));
      } catch {
        key = literal.slice(1, -1);
      }
    }
    keys.push(key.slice(0, 256).replaceAll('~', '~0').replaceAll('/', '~1'));
  }
  return `/${keys.join('/')}`.slice(0, 200);
}

function tooWide(): ApiError {
  return new ApiError(
    'too_many_fields',
    `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
    { details: [{ limit: MAX_OBJECT_KEYS }] },
  );
}

function tooManyKeys(): ApiError {
  return new ApiError(
    'too_many_fields',
    `The body names more than ${MAX_DISTINCT_KEYS} distinct keys; one request may use at most ${MAX_DISTINCT_FIELDS} distinct fields. POST /v1/describe/{object} lists the object's fields.`,
    { details: [{ limit: MAX_DISTINCT_FIELDS }] },
  );
}

function tooDeep(path: string): ApiError {
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}
