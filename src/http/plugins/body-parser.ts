import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { AdmissionQueue } from '../../lib/admission.ts';
import { decodeUtf8Yielding } from '../../lib/utf8-yielding.ts';
import { type JsonShape, MAX_JSON_DEPTH, MAX_OBJECT_KEYS, pointerAt, scanJson } from './json-depth.ts';
import { LARGE_BODY_CHARS, type Parse, parseLargeJson } from './json-pieces.ts';

/**
 * JSON only (anything else is a 415 from Fastify), with one difference from Fastify's parser: an
 * empty body is `undefined` rather than an error, so body-less calls such as describe work with
 * or without a Content-Type header. Routes with a body schema still reject a missing body. Bodies
 * nested deeper than MAX_JSON_DEPTH, or with an object of more than MAX_OBJECT_KEYS keys, are
 * refused (400) before they are parsed. Fastify's own parser (secure-json-parse: `__proto__` and
 * `constructor.prototype` refused) parses every text, whole or in pieces, so a large body gets
 * exactly the answers a small one gets.
 *
 * The body is read as the chunks it arrived in (at most `bodyLimit` bytes; Fastify's own reader
 * would also copy them into one buffer). Large bodies (from LARGE_BODY_CHARS bytes) are then
 * decoded and parsed a few at a time: at most LARGE_BODIES_AT_ONCE bytes of them (at least one
 * body, whatever its size) are materialised at once, from their decoding until an insert, update
 * or delete lets go of its parsed body (`releaseBody`: once its job is stored, or when its direct
 * write starts) and, for any other route, until the body is parsed. The others wait, in arrival
 * order, as their raw chunks: fifty 1 MB bodies arriving together no longer make fifty texts and
 * fifty parsed record lists at once.
 */
export function registerJsonParser(app: FastifyInstance, bodyLimit: number): void {
  const large = new AdmissionQueue(LARGE_BODIES_AT_ONCE);
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  const parse: Parse = (text) => {
    let result: { error: Error | null; value: unknown } = { error: null, value: undefined };
    fastifyParse({} as FastifyRequest, text, (error: Error | null, value?: unknown) => {
      result = { error, value };
    });
    if (result.error !== null) throw result.error;
    return result.value;
  };
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: Payload) => {
    const { chunks, length } = await readChunks(request, payload, bodyLimit);
    if (length >= LARGE_BODY_CHARS) {
      const leave = await large.enter(length);
      if (leave !== undefined) hold(request, leave);
    }
    try {
      // Decoded here, in slices, rather than by Fastify at once (parseAs: 'string').
      const text = await decodeUtf8Yielding(chunks);
      chunks.length = 0;
      if (text.trim() === '') {
        releaseBody(request);
        return undefined;
      }
      let value: unknown;
      if (text.length < LARGE_BODY_CHARS) {
        const shape = scanJson(text);
        if (shape.kind !== 'ok') throw refusal(text, shape);
        value = parse(text);
      } else {
        value = await parseLargeJson(text, parse, refusal, PIECE_CHARS);
      }
      // Only a batch write keeps its place past the parse, until its job is stored or it runs
      // directly; any other request lets go now, so that a slow CRM call never holds up others.
      if (!HELD_BY.has(request.routeOptions.config?.doc?.operation)) releaseBody(request);
      return value;
    } catch (error) {
      releaseBody(request);
      throw error;
    }
  });
  app.addHook('onResponse', (request, _reply, done) => {
    releaseBody(request);
    done();
  });
  // text/plain would otherwise be accepted as a string body; the API speaks JSON only.
  app.removeContentTypeParser(['text/plain']);
}

type Payload = NodeJS.ReadableStream & { receivedEncodedLength?: number };

/**
 * The body's chunks as they arrived, with Fastify's own checks: more than `limit` bytes (declared
 * or sent) is FST_ERR_CTP_BODY_TOO_LARGE (413), a length other than the declared one
 * FST_ERR_CTP_INVALID_CONTENT_LENGTH, a stream error a 400.
 */
function readChunks(
  request: FastifyRequest,
  payload: Payload,
  limit: number,
): Promise<{ chunks: Buffer[]; length: number }> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += bytes.length;
      if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop();
        chunks.length = 0;
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      chunks.push(bytes);
    }
    function onEnd(error?: Error & { statusCode?: number }) {
      stop();
      if (error !== undefined && error !== null) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        reject(error);
        return;
      }
      if (!Number.isNaN(declared) && (payload.receivedEncodedLength || length) !== declared) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      resolve({ chunks, length });
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/**
 * Bytes of large bodies materialised at once (two bodies of 1 MiB). Parsing is work for the event
 * loop, so more at once would not be faster; and what is live when V8 ends a full collection sets
 * how far the heap may grow before the next one (up to four times as far), so every parsed body
 * held at once costs several times its size at the peak.
 */
const LARGE_BODIES_AT_ONCE = 2 * 1024 * 1024;

/**
 * Characters of a large body's `data` parsed at a time. Each piece is copied once into a flat
 * string of its own for JSON.parse: under V8's large-object size (128 KiB) that copy is an
 * ordinary young object, gone at the next scavenge, where a larger one would stay in the old
 * generation until the next full collection.
 */
const PIECE_CHARS = 64 * 1024;

/** Routes whose parsed body is held until `releaseBody`: writes that may run as jobs. */
const HELD_BY = new Set<string | undefined>(['insert', 'update', 'delete']);

/** Requests holding a place among the large bodies materialised at once, and how they leave it. */
const held = new WeakMap<FastifyRequest, () => void>();

/**
 * Notes the request's place. It is left by `releaseBody`: when the request lets go of its body,
 * when it has answered (onResponse), or when its client goes away (the socket closes; a client
 * gone after sending its whole body gets neither onRequestAbort nor, always, onResponse).
 */
function hold(request: FastifyRequest, leave: () => void): void {
  const socket = request.raw.socket;
  const gone = () => releaseBody(request);
  socket.once('close', gone);
  held.set(request, () => {
    socket.removeListener('close', gone);
    leave();
  });
  if (socket.destroyed) releaseBody(request);
}

/**
 * The request no longer holds its parsed body (or is done with it): its place among the large
 * bodies materialised at once goes to the next one. Safe to call more than once, and for any request.
 */
export function releaseBody(request: FastifyRequest): void {
  const leave = held.get(request);
  if (leave === undefined) return;
  held.delete(request);
  leave();
}

function refusal(text: string, shape: Exclude<JsonShape, { kind: 'ok' }>): ApiError {
  if (shape.kind === 'wide') {
    return new ApiError(
      'too_many_fields',
      `An object in the body has more than ${MAX_OBJECT_KEYS} keys; a record may name at most ${MAX_OBJECT_KEYS} fields, and no other request needs more.`,
      { details: [{ limit: MAX_OBJECT_KEYS }] },
    );
  }
  const path = pointerAt(text, shape.at).slice(0, 200);
  return new ApiError(
    'invalid_body',
    `The body is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}); no request of this API needs that. Send field values as strings, numbers, booleans, null or arrays of strings.`,
    { details: [{ path, limit: MAX_JSON_DEPTH }] },
  );
}
