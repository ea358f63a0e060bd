import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { AdmissionQueue } from '../../lib/admission.ts';
import { MAX_DISTINCT_FIELDS } from '../../operations/field-bounds.ts';

/**
 * The deepest nesting any request body of the API needs is about 6 levels (a custom field's
 * `data.valueSet.valueSetDefinition.value[i].fullName`). Deeper JSON parses fine, but anything
 * that later walks it recursively (JSON.stringify, loggers) overflows the stack at a few thousand
 * levels, so deeper bodies are refused.
 */
export const MAX_JSON_DEPTH = 32;

/** Keys in one JSON object: a record names at most MAX_DISTINCT_FIELDS fields, no other body more. */
export const MAX_OBJECT_KEYS = MAX_DISTINCT_FIELDS;

/** Bodies from this many bytes (or of unknown length) wait for a place among the large bodies. */
const LARGE_BODY_BYTES = 256 * 1024;

/**
 * Bytes of large bodies in memory at once. A body heavier than this still enters, alone. One 8 MiB
 * body parsed is several times its size in objects, so fifty of them at once would be gigabytes.
 */
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
 * JSON through Fastify's own parser (secure-json-parse, the body limit, `__proto__` and
 * `constructor.prototype` refused), with two additions: a blank body is `undefined`, so body-less
 * calls such as describe work with or without a Content-Type; and a body nested deeper than
 * MAX_JSON_DEPTH or with an object of more than MAX_OBJECT_KEYS keys is refused (400).
 *
 * A large body waits, unread in its socket, until it gets a place among the large bodies in memory
 * at once; it keeps it until it is parsed, or for a batch write until `releaseBody`.
 */
export function registerJsonParser(app: FastifyInstance, bodyLimit: number): void {
  const places = new AdmissionQueue(LARGE_BODIES_AT_ONCE);
  const parse = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('leaveBodyPlace', null);
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, text, done) => {
    const answer = (error: Error | null, value?: unknown) => {
      if (error !== null || !HELD_BY.has(request.routeOptions.config?.doc?.operation)) releaseBody(request);
      done(error, value);
    };
    if (/^\s*$/.test(text as string)) return answer(null, undefined);
    parse(request, text as string, (error, value) => {
      if (error !== null) return answer(error);
      try {
        checkShape(value);
      } catch (refusal) {
        return answer(refusal as Error);
      }
      answer(null, value);
    });
  });

  // Before its body is read: the request waits for its place, the bytes stay in the socket. The
  // socket's idle timer is off meanwhile (the service, not the client, is not reading); the
  // whole-request deadline still runs.
  app.addHook('preParsing', async (request, _reply, payload) => {
    const weight = bodyWeight(request, bodyLimit);
    if (weight === 0 || request.routeOptions.config?.doc?.operation === 'passthrough') return payload;
    const socket = request.raw.socket;
    const giveUp = new AbortController();
    const gone = () => giveUp.abort();
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
    // A client gone after sending its whole body gets no onResponse: its socket's close frees the place.
    socket.once('close', () => releaseBody(request));
    return payload;
  });
  app.addHook('onResponse', (request, _reply, done) => {
    releaseBody(request);
    done();
  });
}

/** The bytes a body is admitted for: its declared length, the limit for a chunked one, 0 when small. */
function bodyWeight(request: FastifyRequest, bodyLimit: number): number {
  const declared = Number(request.headers['content-length']);
  if (Number.isNaN(declared)) return request.headers['transfer-encoding'] === undefined ? 0 : bodyLimit;
  return declared >= LARGE_BODY_BYTES ? Math.min(declared, bodyLimit) : 0;
}

/**
 * The request no longer holds its parsed body (its job is stored, or it runs directly): its place
 * among the large bodies goes to the next one. Safe to call more than once, and for any request.
 */
export function releaseBody(request: FastifyRequest): void {
  const leave = request.leaveBodyPlace;
  if (leave === null) return;
  request.leaveBodyPlace = null;
  leave();
}

/** Refuses (ApiError) nesting deeper than MAX_JSON_DEPTH and objects of more than MAX_OBJECT_KEYS keys. Linear. */
function checkShape(root: unknown): void {
  interface Item {
    node: object;
    depth: number;
    key: string;
    parent: Item | null;
  }
  if (root === null || typeof root !== 'object') return;
  const stack: Item[] = [{ node: root, depth: 0, key: '', parent: null }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.depth === MAX_JSON_DEPTH) {
      const keys: string[] = [];
      for (let at: Item | null = item; at?.parent != null; at = at.parent) keys.unshift(at.key);
      throw tooDeep(keys);
    }
    const keys = Object.keys(item.node);
    if (!Array.isArray(item.node) && keys.length > MAX_OBJECT_KEYS) throw tooWide();
    // Pushed last to first, so that the first too-deep container in the text is the one named.
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k] as string;
      const child = (item.node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object')
        stack.push({ node: child, depth: item.depth + 1, key, parent: item });
    }
  }
}

function tooWide(): ApiError {
  return new ApiError(
    'too_many_fields',
    `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
    { details: [{ limit: MAX_OBJECT_KEYS }] },
  );
}

function tooDeep(keys: string[]): ApiError {
  const pointer = keys.map((key) => key.slice(0, 256).replaceAll('~', '~0').replaceAll('/', '~1'));
  const path = `/${pointer.join('/')}`.slice(0, 200);
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}
